/**
 * Turning what is wrong with a config into one readable line: `mcpServers.files.args[1]: expected
 * string, got number`. zod's own messages ("Invalid input: expected string, received number") do not
 * say where, and its union errors are unreadable, so we render issues ourselves.
 */
import type * as z from 'zod';
import { ConfigError } from '../src/core/errors.js';

/** A location in the config: keys and array indexes from the top of the file. */
export type ConfigPath = readonly PropertyKey[];

/** One thing wrong with a config, and where. */
export interface Problem {
  readonly path: ConfigPath;
  readonly message: string;
}

/** A key that reads well after a dot; anything else (dots, spaces, empty) is quoted in brackets. */
const BARE_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** `mcpServers["my server"].args[1]`; the empty path is "top level". */
export function renderPath(path: ConfigPath): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') {
      text += `[${segment}]`;
    } else if (typeof segment === 'string' && BARE_KEY.test(segment)) {
      text += text === '' ? segment : `.${segment}`;
    } else {
      text += `[${JSON.stringify(String(segment))}]`;
    }
  }
  return text === '' ? 'top level' : text;
}

/** The kind of a value in the words a config author uses (JSON/YAML, not JavaScript). */
export function describeKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value instanceof Date) return 'date';
  return typeof value;
}

/** A short rendering of a value for a message; long strings are cut so a line stays a line. */
export function quoteValue(value: unknown): string {
  if (typeof value === 'string') {
    const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value;
    return JSON.stringify(shown);
  }
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return describeKind(value);
}

/** zod's names for expected types, in config words. */
function expectedName(expected: string): string {
  switch (expected) {
    case 'int':
      return 'integer';
    case 'record':
      return 'object';
    default:
      return expected;
  }
}

/** The first issue of every branch of a failed union, prefixed with the union's own path. */
function unionBranches(issue: z.core.$ZodIssueInvalidUnion): z.core.$ZodIssue[] {
  const firsts: z.core.$ZodIssue[] = [];
  for (const branch of issue.errors) {
    const first = branch[0];
    if (first !== undefined) firsts.push({ ...first, path: [...issue.path, ...first.path] });
  }
  return firsts;
}

/**
 * One zod issue as a problem. A failed union reports the branch that got furthest (the one the
 * author evidently meant); when none got past the type check, it lists the types accepted.
 */
export function problemFromIssue(issue: z.core.$ZodIssue, prefix: ConfigPath = []): Problem {
  const path = [...prefix, ...issue.path];
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined) {
        return { path, message: `missing (expected ${expectedName(issue.expected)})` };
      }
      const got =
        issue.expected === 'int' && typeof issue.input === 'number'
          ? String(issue.input)
          : describeKind(issue.input);
      return { path, message: `expected ${expectedName(issue.expected)}, got ${got}` };
    }
    case 'too_small':
    case 'too_big': {
      const bound = issue.code === 'too_small' ? issue.minimum : issue.maximum;
      if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint') {
        const comparison =
          issue.code === 'too_small' ? (issue.inclusive ? '>=' : '>') : issue.inclusive ? '<=' : '<';
        return { path, message: `expected number ${comparison} ${bound}, got ${quoteValue(issue.input)}` };
      }
      if (issue.code === 'too_small' && Number(bound) === 1) return { path, message: 'must not be empty' };
      const unit = issue.origin === 'string' ? 'characters' : 'items';
      const limit = issue.code === 'too_small' ? 'at least' : 'at most';
      return { path, message: `expected ${limit} ${bound} ${unit}` };
    }
    case 'invalid_value': {
      const accepted = issue.values.map((value) => quoteValue(value));
      const wanted = accepted.length === 1 ? accepted.join('') : `one of ${accepted.join(', ')}`;
      return { path, message: `expected ${wanted}, got ${quoteValue(issue.input)}` };
    }
    case 'invalid_union': {
      const branches = unionBranches(issue);
      const allTypeMismatches = branches.every(
        (branch) => branch.code === 'invalid_type' && branch.path.length === issue.path.length,
      );
      if (allTypeMismatches && branches.length > 0) {
        const names = branches.map((branch) =>
          branch.code === 'invalid_type' ? expectedName(branch.expected) : '',
        );
        return { path, message: `expected ${names.join(' or ')}, got ${describeKind(issue.input)}` };
      }
      const furthest = branches.reduce<z.core.$ZodIssue | undefined>(
        (best, branch) => (best === undefined || branch.path.length > best.path.length ? branch : best),
        undefined,
      );
      return furthest === undefined ? { path, message: issue.message } : problemFromIssue(furthest, prefix);
    }
    case 'invalid_format':
      return { path, message: `expected ${issue.format}, got ${quoteValue(issue.input)}` };
    case 'custom':
    case 'not_multiple_of':
    case 'unrecognized_keys':
    case 'invalid_key':
    case 'invalid_element':
      return { path, message: issue.message };
    default: {
      const unexpected: never = issue;
      return { path, message: String(unexpected) };
    }
  }
}

/** Every issue of a failed parse, as problems under `prefix`. */
export function problemsFromError(error: z.ZodError, prefix: ConfigPath = []): Problem[] {
  return error.issues.map((issue) => problemFromIssue(issue, prefix));
}

/** `path: message`, on one line whatever the message holds. */
export function renderProblem(problem: Problem): string {
  return `${renderPath(problem.path)}: ${problem.message}`.replace(/\s*[\r\n]+\s*/g, ' ');
}

/** The most problems one message lists; a config with more is probably not a config at all. */
export const MAX_LISTED_PROBLEMS = 10;

/**
 * The ConfigError for a list of problems. One problem is one line; several are a one-line
 * summary with each problem on its own line under it (up to {@link MAX_LISTED_PROBLEMS}), so the
 * author can fix them all in one go.
 */
export function configErrorFor(source: string, problems: readonly [Problem, ...Problem[]]): ConfigError {
  if (problems.length === 1) return new ConfigError(source, renderProblem(problems[0]));
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS).map((problem) => `\n  ${renderProblem(problem)}`);
  const rest = problems.length - MAX_LISTED_PROBLEMS;
  const more = rest > 0 ? `\n  … and ${rest} more` : '';
  return new ConfigError(source, `${problems.length} problems:${listed.join('')}${more}`);
}

/** Throws {@link configErrorFor} the problems, if there are any. */
export function throwIfProblems(source: string, problems: readonly Problem[]): void {
  const [first, ...rest] = problems;
  if (first !== undefined) throw configErrorFor(source, [first, ...rest]);
}
