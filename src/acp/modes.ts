/**
 * The session modes an editor offers (`session/set_mode`): the approval modes people know from
 * Claude Code and gemini-cli, laid over mcphost's approval rules (the guard's session-mode stage).
 *
 * - `ask-before-changes` (default): the rules as configured; a tool that does not say it is
 *   read-only is asked about (the chat's behaviour).
 * - `accept-edits`: as above, but file edits (tools of kind edit or move) run without asking.
 * - `read-only`: only tools that say they are read-only run; every other call is refused.
 *
 * A `deny` rule holds in every mode, and so does a rule set that asks in every run (built-in bash).
 */
import type { SessionModeState } from '@agentclientprotocol/sdk';
import type { SessionModeCheck, SessionModeVerdict } from '../safety/session-mode.js';
import { isEditKind, toolKindOf } from './tool-kind.js';

export const SESSION_MODES = ['ask-before-changes', 'accept-edits', 'read-only'] as const;
export type SessionModeId = (typeof SESSION_MODES)[number];
export const DEFAULT_MODE: SessionModeId = 'ask-before-changes';

export function isSessionMode(id: string): id is SessionModeId {
  return (SESSION_MODES as readonly string[]).includes(id);
}

/** What the editor shows in its mode picker. */
export function modeState(current: SessionModeId): SessionModeState {
  return {
    currentModeId: current,
    availableModes: [
      {
        id: 'ask-before-changes',
        name: 'Ask before changes',
        description: 'Tools that do not say they are read-only ask for permission first',
      },
      {
        id: 'accept-edits',
        name: 'Accept edits',
        description: 'File edits run without asking; other changes still ask',
      },
      { id: 'read-only', name: 'Read only', description: 'Only read-only tools run; the rest are refused' },
    ],
  };
}

/** The guard's check for a session whose mode `current()` reads. */
export function modeCheck(current: () => SessionModeId): SessionModeCheck {
  return (identity): SessionModeVerdict => {
    const mode = current();
    switch (mode) {
      case 'ask-before-changes':
        return { kind: 'no-say' };
      case 'accept-edits':
        return isEditKind(toolKindOf(identity.tool ?? identity.exposedName, identity.hints))
          ? { kind: 'allow', reason: 'the session accepts edits' }
          : { kind: 'no-say' };
      case 'read-only':
        return identity.hints?.readOnly === true
          ? { kind: 'no-say' }
          : {
              kind: 'refuse',
              reason: 'the session is read-only, and this tool does not say it is read-only',
            };
      default: {
        const unexpected: never = mode;
        throw new TypeError(`unknown session mode ${String(unexpected)}`);
      }
    }
  };
}
