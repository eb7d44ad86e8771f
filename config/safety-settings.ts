/**
 * The safety settings of one config file, from their checked file form to what `src/safety` takes:
 * an approval rule set (with the file as its source, for messages) and a hooks table. Also merging
 * them across files (the home config, the Go mcphost's hooks file, a trusted project config).
 */
import type { ApprovalRule, ApprovalRuleSet } from '../src/safety/policy.js';
import { HOOK_EVENTS, type HookMatcherGroup, type HooksConfig } from '../src/safety/hooks.js';
import type { ApprovalSettings, HookSettings, PermissionSettings } from './safety-schema.js';
import { definedProperties } from '../src/util/defined-properties.js';

/**
 * One file's rule set: `approval.rules` in order, then Claude Code's `permissions` lists as rules
 * in the order deny, ask, allow (its precedence), then `approval.default`. `undefined` when the
 * file has no approval settings at all.
 */
export function approvalRuleSet(
  source: string,
  approval: ApprovalSettings | undefined,
  permissions: PermissionSettings | undefined,
): ApprovalRuleSet | undefined {
  const listed = (globs: readonly string[] | undefined, decision: ApprovalRule['decision']): ApprovalRule[] =>
    (globs ?? []).map((tool) => ({ tool, decision }));
  const rules: ApprovalRule[] = [
    ...(approval?.rules ?? []).map((rule) => ({
      decision: rule.decision,
      ...definedProperties({
        tool: rule.tool,
        server: rule.server,
        readOnly: rule.readOnly,
        destructive: rule.destructive,
        openWorld: rule.openWorld,
        reason: rule.reason,
      }),
    })),
    ...listed(permissions?.deny, 'deny'),
    ...listed(permissions?.ask, 'ask'),
    ...listed(permissions?.allow, 'allow'),
  ];
  const sampling = approval?.sampling ?? [];
  if (rules.length === 0 && approval?.default === undefined && sampling.length === 0) return undefined;
  return {
    source,
    rules,
    ...definedProperties({ default: approval?.default }),
    ...(sampling.length === 0 ? {} : { sampling }),
  };
}

/** The hooks of one file, without empty events; `undefined` when there are none. */
export function hooksConfig(settings: HookSettings | undefined): HooksConfig | undefined {
  if (settings === undefined) return undefined;
  const config: { [Event in (typeof HOOK_EVENTS)[number]]?: HookMatcherGroup[] } = {};
  for (const event of HOOK_EVENTS) {
    const groups = settings[event];
    if (groups === undefined || groups.length === 0) continue;
    config[event] = groups.map((group) => ({
      ...(group.matcher === null || group.matcher === undefined ? {} : { matcher: group.matcher }),
      hooks: group.hooks.map((hook) => ({
        command: hook.command,
        ...definedProperties({ timeoutSeconds: hook.timeout }),
      })),
    }));
  }
  return Object.keys(config).length === 0 ? undefined : config;
}

/** Both files' hooks: for each event, the first file's groups, then the second's. All of them run. */
export function mergeHooks(
  first: HooksConfig | undefined,
  second: HooksConfig | undefined,
): HooksConfig | undefined {
  if (first === undefined) return second;
  if (second === undefined) return first;
  const merged: { [Event in (typeof HOOK_EVENTS)[number]]?: readonly HookMatcherGroup[] } = {};
  for (const event of HOOK_EVENTS) {
    const groups = [...(first[event] ?? []), ...(second[event] ?? [])];
    if (groups.length > 0) merged[event] = groups;
  }
  return merged;
}

/** Every command a hooks table would run, for a trust prompt. */
export function hookCommands(
  hooks: HooksConfig | undefined,
): Array<{ event: string; matcher?: string; command: string }> {
  if (hooks === undefined) return [];
  return HOOK_EVENTS.flatMap((event) =>
    (hooks[event] ?? []).flatMap((group) =>
      group.hooks.map((hook) => ({
        event,
        ...definedProperties({ matcher: group.matcher }),
        command: hook.command,
      })),
    ),
  );
}
