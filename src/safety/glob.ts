/**
 * Tool-name globs for approval rules: `filesystem__write_*`, `*__delete*`, `memory__?ead`.
 *
 * Deliberately small: `*` is any run of characters (including none, and including `__`), `?` is one
 * character, everything else is itself. A glob matches the whole name, case-sensitively — the same
 * way the names are written in `/tools`, so what a user sees is what a rule matches.
 */

/** Characters that mean something in a regular expression and must be escaped to be literal. */
const REGEXP_SPECIAL = /[.+^${}()|[\]\\/-]/g;

/** Compiles a glob to an anchored regular expression. */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (const character of glob) {
    if (character === '*') source += '.*';
    else if (character === '?') source += '.';
    else source += character.replace(REGEXP_SPECIAL, '\\$&');
  }
  // `s`: a `*` also runs over line breaks (names have none; arguments never reach a glob).
  return new RegExp(`^${source}$`, 's');
}

/** A compiled glob that remembers how it was written (for messages such as "rule `x__*`"). */
export interface Glob {
  readonly pattern: string;
  matches(text: string): boolean;
}

/** Compiles `pattern` once; `matches` is then cheap. */
export function compileGlob(pattern: string): Glob {
  const expression = globToRegExp(pattern);
  return { pattern, matches: (text) => expression.test(text) };
}
