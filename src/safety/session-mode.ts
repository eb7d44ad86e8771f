/**
 * A check the front end changes while the session runs (the editor's approval mode): consulted by
 * the guard after the approval rules for every call (guard/session-mode-stage.ts).
 */
import type { ToolIdentity } from './policy.js';

/** What the session's mode says about one call. */
export type SessionModeVerdict =
  /** Nothing: the rules and the question decide. */
  | { readonly kind: 'no-say' }
  /** Run it without asking (an ask the rules made is lifted; a deny stays). */
  | { readonly kind: 'allow'; readonly reason: string }
  /** Do not run it; `reason` is told to the model. */
  | { readonly kind: 'refuse'; readonly reason: string };

export type SessionModeCheck = (identity: ToolIdentity) => SessionModeVerdict;
