/**
 * `${VAR}` expansion, in the forms Claude Code and the Go mcphost users already write:
 *
 * | Written                  | Becomes                                                        |
 * | ------------------------ | -------------------------------------------------------------- |
 * | `${VAR}`                 | the value of VAR (empty if set but empty); an error if unset    |
 * | `${VAR:-default}`        | the value of VAR, or `default` when VAR is unset or empty       |
 * | `${env://VAR}`           | the same as `${VAR}` (the Go mcphost's spelling)               |
 * | `${env://VAR:-default}`  | the same as `${VAR:-default}`                                  |
 * | `$${`                    | a literal `${` (so `$${HOME}` stays `${HOME}`, e.g. for `sh -c`) |
 *
 * A default is taken literally up to the first `}` (no nesting). `$VAR` without braces is left
 * alone, as is a `$` not followed by `{`. Any other `${…}` is an error rather than text passed on
 * silently: a typo in a variable should not reach a server as a literal argument.
 *
 * Pure: the values come from a lookup function, so the same code can serve config files (from the
 * environment) and, later, script files (from `--args:name`).
 */

/** One `${…}` found in a string. */
export interface VariableReference {
  /** The variable's name. */
  readonly name: string;
  /** True for the Go mcphost's `${env://NAME}` spelling. */
  readonly envScheme: boolean;
  /** The text after `:-`, when given. */
  readonly defaultValue: string | undefined;
  /** The reference as written, `${…}` included. */
  readonly written: string;
}

/** What expanding one string gave. */
export type ExpansionResult =
  | { readonly kind: 'expanded'; readonly value: string }
  /** A variable with no value and no default. */
  | { readonly kind: 'missing'; readonly reference: VariableReference }
  /** A `${` that is not one of the accepted forms (or is never closed). */
  | { readonly kind: 'malformed'; readonly written: string };

/** Looks a variable up; `undefined` means "not set". */
export type VariableLookup = (reference: VariableReference) => string | undefined;

const REFERENCE = /^(env:\/\/)?([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;

/** Expands every reference in `text`, stopping at the first one that cannot be expanded. */
export function expandVariables(text: string, lookup: VariableLookup): ExpansionResult {
  let value = '';
  let index = 0;
  while (index < text.length) {
    const dollar = text.indexOf('$', index);
    if (dollar === -1) break;
    value += text.slice(index, dollar);
    if (text.startsWith('$${', dollar)) {
      value += '${';
      index = dollar + 3;
      continue;
    }
    if (!text.startsWith('${', dollar)) {
      value += '$';
      index = dollar + 1;
      continue;
    }
    const close = text.indexOf('}', dollar + 2);
    if (close === -1) return { kind: 'malformed', written: text.slice(dollar) };
    const written = text.slice(dollar, close + 1);
    const match = REFERENCE.exec(text.slice(dollar + 2, close));
    const name = match?.[2];
    if (match === null || name === undefined) return { kind: 'malformed', written };
    const reference: VariableReference = {
      name,
      envScheme: match[1] !== undefined,
      defaultValue: match[3],
      written,
    };
    const found = lookup(reference);
    if (reference.defaultValue !== undefined && (found === undefined || found === '')) {
      value += reference.defaultValue;
    } else if (found === undefined) {
      return { kind: 'missing', reference };
    } else {
      value += found;
    }
    index = close + 1;
  }
  return { kind: 'expanded', value: value + text.slice(index) };
}

/** A lookup in an environment, for both `${VAR}` and `${env://VAR}`. */
export function environmentLookup(env: Readonly<Record<string, string | undefined>>): VariableLookup {
  return (reference) => (Object.hasOwn(env, reference.name) ? env[reference.name] : undefined);
}

/** The one-line explanation of a failed expansion, for a config error. */
export function describeExpansionFailure(result: Exclude<ExpansionResult, { kind: 'expanded' }>): string {
  switch (result.kind) {
    case 'missing':
      return `environment variable ${result.reference.name} is not set (used as ${result.reference.written} with no default)`;
    case 'malformed':
      return `malformed variable ${JSON.stringify(result.written)} (write \${NAME}, \${NAME:-default} or \${env://NAME}; $\${ for a literal \${)`;
    default: {
      const unexpected: never = result;
      return String(unexpected);
    }
  }
}
