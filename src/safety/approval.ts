/**
 * Asking the user about a tool call, and remembering "always" answers for the session.
 *
 * The question itself is the caller's (the chat shows it; see `src/cli/prompts/approval-prompt.ts`): this
 * module defines what is asked, the possible answers, and the session's memory of them.
 */
import type { ToolCallBlock } from '../core/types.js';
import type { ToolHints } from './policy.js';

/** What the user is asked about. */
export interface ApprovalRequest {
  /** The call as the model made it: `name` is the exposed name, `input` the arguments. */
  readonly call: ToolCallBlock;
  /** The configured server the tool belongs to, when known. */
  readonly server?: string;
  /** The tool's own name on its server (the exposed name when the server is unknown). */
  readonly tool: string;
  /** What the tool's server says about it (read-only, destructive…), when known: hints, not facts. */
  readonly hints?: ToolHints;
  /**
   * Whether the tool's server runs in a sandbox (docs/safety.md): set for servers that run
   * processes on this machine (stdio servers, the built-in `bash`), absent for the others.
   */
  readonly sandboxed?: boolean;
  /** Why the user is asked: the rule, or a PreToolUse hook's reason. */
  readonly reason: string;
  /** The named agent whose run made the call (src/agents); absent for the main run. */
  readonly agent?: string;
  /** Aborted when the run is cancelled: a prompt may stop waiting (the call is then not run). */
  readonly signal?: AbortSignal;
}

/** The user's answer. */
export type ApprovalDecision =
  /** Run this call. */
  | { readonly kind: 'allow-once' }
  /**
   * Run this call and every later call of the same tool, for the rest of the session; with `keep`,
   * also in later runs in this project folder (kept-permissions.ts), where that is allowed.
   */
  | { readonly kind: 'allow-tool'; readonly keep?: boolean }
  /** Run this call and every later call of any tool of the same server, for the session; `keep` as above. */
  | { readonly kind: 'allow-server'; readonly keep?: boolean }
  /**
   * Do not run it; `reason`, when given, is passed on to the model. With `always`, every later call
   * of the same tool is refused without asking, for the rest of the session ("always deny").
   */
  | { readonly kind: 'deny'; readonly reason?: string; readonly always?: boolean };

/** Asks the user. Resolves with their answer; a rejection counts as a denial. */
export type ApprovalHandler = (request: ApprovalRequest) => Promise<ApprovalDecision>;

/** "Always" answers given during a session. Only `ask` decisions are covered: a deny rule stays. */
export class SessionGrants {
  readonly #tools = new Set<string>();
  readonly #servers = new Set<string>();
  /** Tools the user said "always deny" to: refused without asking for the rest of the session. */
  readonly #refusedTools = new Set<string>();

  /** True when an earlier "always deny" answer refuses this tool. */
  refuses(exposedName: string): boolean {
    return this.#refusedTools.has(exposedName);
  }

  /** True when an earlier answer already allowed this tool (by name, or by its server). */
  covers(exposedName: string, server: string | undefined): boolean {
    return this.#tools.has(exposedName) || (server !== undefined && this.#servers.has(server));
  }

  /** Remembers an answer; `allow-server` for a tool of unknown server remembers the tool. */
  remember(decision: ApprovalDecision, exposedName: string, server: string | undefined): void {
    switch (decision.kind) {
      case 'allow-tool':
        this.#tools.add(exposedName);
        return;
      case 'allow-server':
        if (server === undefined) this.#tools.add(exposedName);
        else this.#servers.add(server);
        return;
      case 'deny':
        if (decision.always === true) this.#refusedTools.add(exposedName);
        return;
      case 'allow-once':
        return;
      default: {
        const unexpected: never = decision;
        throw new TypeError(`unknown approval decision ${JSON.stringify(unexpected)}`);
      }
    }
  }

  /** Forgets every "always" answer (e.g. on `/clear`). */
  clear(): void {
    this.#tools.clear();
    this.#servers.clear();
    this.#refusedTools.clear();
  }
}
