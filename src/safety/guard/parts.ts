/** What the guard's stages work with: the settings, and the collaborators the guard was given. */
import type { GuardActivityObserver } from './activity.js';
import type { QuestionQueue, UserQuestions } from '../../core/questions.js';
import type { SessionGrants } from '../approval.js';
import type { ServerIdentity } from '../audit-log.js';
import type { ToolBudgets } from '../budgets.js';
import type { HookRunner } from '../hooks.js';
import type { SafetyOptions } from '../options.js';
import type { ApprovalPolicy } from '../policy.js';
import type { FlagReport } from '../untrusted-content.js';
import type { ToolPinCheck } from '../tool-pin-check.js';
import type { ToolLocation } from '../tool-location.js';

export interface GuardParts {
  readonly settings: SafetyOptions;
  readonly policy: ApprovalPolicy;
  readonly budgets: ToolBudgets;
  /** The "always allow" answers of this session. */
  readonly grants: SessionGrants;
  /** The runner's one question queue: approvals and content questions never overlap. */
  readonly questionQueue: QuestionQueue;
  readonly questions: UserQuestions | undefined;
  readonly hooks: HookRunner | undefined;
  readonly identify: ((server: string) => ServerIdentity | undefined) | undefined;
  readonly onFlagged: ((report: FlagReport) => void) | undefined;
  readonly onWarning: ((message: string) => void) | undefined;
  readonly toolOutputFolder: string | undefined;
  readonly maxResultBytes: number;
  /** Why a call's signal aborted: the run was cancelled, or the guard is closing. */
  readonly cancellation: () => string;
  /** The check of tool definitions against their pins, when pinning is on. */
  readonly pins: ToolPinCheck | undefined;
  /** Whether a tool needs no approval, so is pinned when seen (else when a call is approved). */
  readonly pinsOnSight: (exposedName: string, location: ToolLocation) => boolean;
  /** Follows approval waits, hook runs and the screen (telemetry), when something listens. */
  readonly activities?: GuardActivityObserver | undefined;
}

/** The tool fields of a hook's input (the Go mcphost's names, and the MCP server and tool). */
export function hookToolFields(
  call: { readonly name: string; readonly input: Readonly<Record<string, unknown>> },
  location: { readonly server: string; readonly tool: string } | undefined,
): Record<string, unknown> {
  return {
    tool_name: call.name,
    tool_input: call.input,
    mcp_server: location?.server ?? null,
    mcp_tool: location?.tool ?? call.name,
  };
}
