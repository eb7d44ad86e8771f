/**
 * The approval policy: which tool calls run without asking, which need the user's yes, which never
 * run.
 *
 * How a decision is reached (documented for users in docs/safety.md):
 *
 * - Within one rule set (one config file) the **first rule that matches wins**, in the order
 *   written, so `filesystem__read_*: allow` above `filesystem__*: deny` reads as it is meant. When
 *   no rule matches, the set's `default` applies, if it has one.
 * - Across rule sets (the home config and a trusted project config), the **strictest** answer wins:
 *   deny over ask over allow. Neither file can loosen what the other one restricts.
 * - With no rule and no default anywhere, the {@link ApprovalFallback} decides: `allow` runs every
 *   call (where no one can be asked: `-p`, a library without an approval callback);
 *   `ask-unless-read-only` runs a tool whose annotations say `readOnlyHint: true` and asks about
 *   any other (the chat, as Claude Code and gemini-cli do). A default in any set replaces it.
 */
import { compileGlob, type Glob } from './glob.js';
import type { ToolHints } from './tool-hints.js';

export { toolHintsOf, type ToolHints } from './tool-hints.js';

/** What the policy says about a call. */
export type ToolDecision = 'allow' | 'ask' | 'deny';

/**
 * What decides a call no rule and no default speaks to: `allow` runs it; `ask-unless-read-only`
 * runs it when its server says it is read-only (`readOnlyHint: true`) and asks otherwise.
 */
export type ApprovalFallback = 'allow' | 'ask-unless-read-only';

/** From the most to the least permissive: a higher index is stricter. */
const STRICTNESS: readonly ToolDecision[] = ['allow', 'ask', 'deny'];

/**
 * One rule. At least one of `tool`, `server`, `readOnly`, `destructive` and `openWorld` is set;
 * every one that is set must match.
 */
export interface ApprovalRule {
  /**
   * Glob on the exposed tool name, `server__tool` (`*` any run of characters, `?` one character).
   * In a rule that also names a `server`, it may be the server's own tool name instead
   * (`{ server: "github", tool: "delete_*" }`), as `allowedTools` takes it.
   */
  readonly tool?: string;
  /** Glob on the configured server name. */
  readonly server?: string;
  /** Matches tools whose {@link ToolHints.readOnly} is this (a tool of unknown hints never matches). */
  readonly readOnly?: boolean;
  /** Matches tools whose {@link ToolHints.destructive} is this. */
  readonly destructive?: boolean;
  /** Matches tools whose {@link ToolHints.openWorld} is this. */
  readonly openWorld?: boolean;
  readonly decision: ToolDecision;
  /** Why: given to the model when the rule denies a call, shown to the user when it asks. */
  readonly reason?: string;
}

/**
 * Whether a server may have the model called for it (`sampling/createMessage`). Sampling rules are
 * apart from tool rules: neither kind ever matches the other's question.
 */
export interface SamplingRule {
  /** Glob on the configured server name. */
  readonly server: string;
  /** `allow`: sent without asking; `ask`: the user reviews it (declined where nobody can be asked); `deny`. */
  readonly decision: ToolDecision;
}

/** The rules of one config file. */
export interface ApprovalRuleSet {
  /** Where the rules come from, for messages (a config file's path). */
  readonly source: string;
  /** In order: the first that matches decides. */
  readonly rules: readonly ApprovalRule[];
  /** The decision when no rule matches. Unset: this set has no opinion. */
  readonly default?: ToolDecision;
  /**
   * True: this set's `ask` is asked every run; an "always allow" answer kept from an earlier run
   * (kept-permissions.ts) does not lift it. The built-in bash server's set.
   */
  readonly alwaysAsk?: boolean;
  /** Sampling rules, in order: the first whose server matches decides. `default` does not apply. */
  readonly sampling?: readonly SamplingRule[];
}

/** What a rule is matched against. */
export interface ToolIdentity {
  /** The name the model called, `server__tool`. */
  readonly exposedName: string;
  /** The configured server name, when the host knows it. */
  readonly server?: string;
  /** The tool's own name on its server, when the host knows it. */
  readonly tool?: string;
  /** What the server says about the tool, when the host knows it. */
  readonly hints?: ToolHints;
}

/** A decision and what made it. */
export interface PolicyVerdict {
  readonly decision: ToolDecision;
  /** The rule that decided; absent when a default (or nothing) did. */
  readonly rule?: ApprovalRule;
  /** For messages: `rule "filesystem__write_*" in /home/ada/.mcp.json`. */
  readonly because: string;
  /** True when the decision is `ask` from a set marked `alwaysAsk`: no kept answer lifts it. */
  readonly alwaysAsk?: boolean;
}

interface CompiledRule {
  readonly rule: ApprovalRule;
  readonly tool: Glob | undefined;
  readonly server: Glob | undefined;
}

interface CompiledSet {
  readonly source: string;
  readonly rules: readonly CompiledRule[];
  readonly default: ToolDecision | undefined;
  readonly alwaysAsk: boolean;
  readonly sampling: ReadonlyArray<{ readonly rule: SamplingRule; readonly server: Glob }>;
}

/** What the policy says about a server's sampling request. */
export interface SamplingVerdict {
  readonly decision: ToolDecision;
  /** For messages: `the sampling rule server "everything" → allow in /home/ada/.mcp.json`. */
  readonly because: string;
}

/** Sampling with no rule: the user is asked where someone can be, otherwise it is declined. */
const SAMPLING_WITHOUT_RULE: SamplingVerdict = {
  decision: 'ask',
  because: 'no sampling rule allows it for this server',
};

/** The verdict when nothing is configured and the fallback is `allow`. */
const ALLOWED_BY_DEFAULT: PolicyVerdict = { decision: 'allow', because: 'no approval rule applies' };
/** The verdicts of the `ask-unless-read-only` fallback. */
const ALLOWED_AS_READ_ONLY: PolicyVerdict = {
  decision: 'allow',
  because: 'no approval rule applies, and the tool says it is read-only',
};
const ASKED_AS_NOT_READ_ONLY: PolicyVerdict = {
  decision: 'ask',
  because: 'no approval rule applies, and the tool does not say it is read-only',
};

/** The rule sets of a session, compiled once. */
export class ApprovalPolicy {
  readonly #sets: readonly CompiledSet[];
  readonly #fallback: ApprovalFallback;

  /** `fallback` decides what no rule and no default speaks to (default `allow`). */
  constructor(ruleSets: readonly ApprovalRuleSet[] = [], fallback: ApprovalFallback = 'allow') {
    this.#fallback = fallback;
    this.#sets = ruleSets.map((set) => ({
      source: set.source,
      default: set.default,
      alwaysAsk: set.alwaysAsk === true,
      rules: set.rules.map((rule) => ({
        rule,
        tool: rule.tool === undefined ? undefined : compileGlob(rule.tool),
        server: rule.server === undefined ? undefined : compileGlob(rule.server),
      })),
      sampling: (set.sampling ?? []).map((rule) => ({ rule, server: compileGlob(rule.server) })),
    }));
  }

  /** True when no set has a rule or a default: the fallback decides every call. */
  get isEmpty(): boolean {
    return this.#sets.every((set) => set.rules.length === 0 && set.default === undefined);
  }

  /** The decision for one tool: first match within each set, the strictest across sets. */
  decide(tool: ToolIdentity): PolicyVerdict {
    let verdict: PolicyVerdict | undefined;
    for (const set of this.#sets) {
      const candidate = decideInSet(set, tool);
      if (candidate === undefined) continue;
      if (verdict === undefined || strictness(candidate.decision) > strictness(verdict.decision)) {
        verdict = candidate;
      }
      // Any set that always asks makes the `ask`, whichever set's reason is shown, one that always asks.
      if (set.alwaysAsk && candidate.decision === 'ask' && verdict.decision === 'ask') {
        verdict = { ...verdict, alwaysAsk: true };
      }
    }
    return verdict ?? this.#fallbackVerdict(tool);
  }

  #fallbackVerdict(tool: ToolIdentity): PolicyVerdict {
    switch (this.#fallback) {
      case 'allow':
        return ALLOWED_BY_DEFAULT;
      case 'ask-unless-read-only':
        // A tool whose hints are unknown (its server unknown) is not known to be read-only.
        return tool.hints?.readOnly === true ? ALLOWED_AS_READ_ONLY : ASKED_AS_NOT_READ_ONLY;
      default: {
        const unexpected: never = this.#fallback;
        throw new TypeError(`unknown approval fallback ${String(unexpected)}`);
      }
    }
  }

  /** The decision for a server's sampling request: first match within each set, the strictest across. */
  decideSampling(server: string): SamplingVerdict {
    let verdict: SamplingVerdict | undefined;
    for (const set of this.#sets) {
      const match = set.sampling.find((compiled) => compiled.server.matches(server));
      if (match === undefined) continue;
      const candidate = {
        decision: match.rule.decision,
        because: `the sampling rule server "${match.rule.server}" → ${match.rule.decision} in ${set.source}`,
      };
      if (verdict === undefined || strictness(candidate.decision) > strictness(verdict.decision)) {
        verdict = candidate;
      }
    }
    return verdict ?? SAMPLING_WITHOUT_RULE;
  }
}

function decideInSet(set: CompiledSet, tool: ToolIdentity): PolicyVerdict | undefined {
  for (const compiled of set.rules) {
    if (ruleMatches(compiled, tool)) {
      return {
        decision: compiled.rule.decision,
        rule: compiled.rule,
        because: describeRule(compiled.rule, set),
      };
    }
  }
  if (set.default === undefined) return undefined;
  return { decision: set.default, because: `the default "${set.default}" of ${set.source}` };
}

function ruleMatches(compiled: CompiledRule, tool: ToolIdentity): boolean {
  if (!hintsMatch(compiled.rule, tool.hints)) return false;
  if (compiled.tool === undefined && compiled.server === undefined) return true;
  if (compiled.tool !== undefined && !compiled.tool.matches(tool.exposedName)) {
    // With a server named, the tool may be written as the server calls it (what allowedTools takes).
    const ownName =
      compiled.server !== undefined && tool.tool !== undefined && compiled.tool.matches(tool.tool);
    if (!ownName) return false;
  }
  if (compiled.server !== undefined) {
    // A rule about a server cannot match a tool whose server we do not know.
    if (tool.server === undefined || !compiled.server.matches(tool.server)) return false;
  }
  return true;
}

/** A rule's hint conditions hold; a tool whose hints are unknown matches no hint condition. */
function hintsMatch(rule: ApprovalRule, hints: ToolHints | undefined): boolean {
  const wanted = HINT_KEYS.filter((key) => rule[key] !== undefined);
  if (wanted.length === 0) return true;
  if (hints === undefined) return false;
  return wanted.every((key) => hints[key] === rule[key]);
}

const HINT_KEYS = ['readOnly', 'destructive', 'openWorld'] as const satisfies ReadonlyArray<keyof ToolHints>;

function describeRule(rule: ApprovalRule, set: CompiledSet): string {
  const parts = [
    ...(rule.tool === undefined ? [] : [`tool "${rule.tool}"`]),
    ...(rule.server === undefined ? [] : [`server "${rule.server}"`]),
    ...HINT_KEYS.filter((key) => rule[key] !== undefined).map((key) => `${key}: ${String(rule[key])}`),
  ];
  return `the rule ${parts.join(' + ') || '(any tool)'} → ${rule.decision} in ${set.source}`;
}

function strictness(decision: ToolDecision): number {
  return STRICTNESS.indexOf(decision);
}
