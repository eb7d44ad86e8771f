/**
 * `--var name=value` arguments, read for `mcphost batch` and `mcphost jobs submit`. A module of its
 * own, without zod or node:crypto, because the command line checks `--var` while it parses
 * (src/cli/command-line/batch-tree.ts) and every run, `--help` included, loads that parser:
 * importing it from job.ts evaluated job.ts's schemas and loaded node:crypto at start (~5 ms on
 * Node 20; docs/design.md, "The start path").
 */

/**
 * Parses `--var name=value` arguments. Throws a one-line error naming the argument when it has no
 * `=` or an unusable name.
 */
export function parseVarArguments(args: readonly string[]): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const arg of args) {
    const equals = arg.indexOf('=');
    const name = equals < 0 ? '' : arg.slice(0, equals).trim();
    if (equals < 0 || !/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name)) {
      throw new Error(`--var ${JSON.stringify(arg)}: expected name=value (a name of letters, digits, _ . -)`);
    }
    vars[name] = arg.slice(equals + 1);
  }
  return vars;
}
