/**
 * Tool annotations as approval rules and questions read them. A module of its own so that the
 * pool can read hints without loading the policy.
 */

/**
 * What a tool's server says about it (the MCP `ToolAnnotations` hints), with the spec's defaults
 * applied: a tool that says nothing is not read-only, is destructive and reaches the open world.
 * They are hints from an untrusted server: a rule that allows by them trusts the server to be honest.
 */
export interface ToolHints {
  /** `readOnlyHint: true`: the tool does not change its environment. */
  readonly readOnly: boolean;
  /** Not read-only and not `destructiveHint: false`: the tool may delete or overwrite things. */
  readonly destructive: boolean;
  /** Not `openWorldHint: false`: the tool may reach things outside the server (the web…). */
  readonly openWorld: boolean;
}

/** The hints of a tool from its raw `annotations` (anything a server sent), the spec's defaults applied. */
export function toolHintsOf(annotations: unknown): ToolHints {
  const record = typeof annotations === 'object' && annotations !== null ? annotations : {};
  const hint = (key: string): unknown => (record as Record<string, unknown>)[key];
  const readOnly = hint('readOnlyHint') === true;
  return {
    readOnly,
    destructive: !readOnly && hint('destructiveHint') !== false,
    openWorld: hint('openWorldHint') !== false,
  };
}
