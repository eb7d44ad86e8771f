/**
 * `--args:name value` (or `--args:name=value`): the variables of `mcphost script FILE`. They are
 * taken out of argv before the flags are parsed, since their names are the script's, not ours; values
 * stay strings exactly as given (`007` stays `007`).
 */
import { ConfigError } from '../../core/errors.js';

const PREFIX = '--args:';
/** The names `${name}` may use (the same as the config's `${VAR}`). */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** argv without the `--args:*` options, and their values by name. */
export interface SplitArguments {
  readonly argv: readonly string[];
  readonly scriptArguments: Readonly<Record<string, string>>;
  /** True when at least one `--args:*` was given. */
  readonly any: boolean;
}

/**
 * Takes every `--args:NAME VALUE` and `--args:NAME=VALUE` out of argv (up to a `--`). Throws a
 * ConfigError for a bad name, a missing value, or a name given twice.
 */
export function splitScriptArguments(argv: readonly string[]): SplitArguments {
  const rest: string[] = [];
  const values = new Map<string, string>();
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] ?? '';
    if (argument === '--') {
      rest.push(...argv.slice(index));
      break;
    }
    if (!argument.startsWith(PREFIX)) {
      rest.push(argument);
      continue;
    }
    const body = argument.slice(PREFIX.length);
    const equals = body.indexOf('=');
    const name = equals === -1 ? body : body.slice(0, equals);
    if (!VARIABLE_NAME.test(name)) {
      throw new ConfigError(
        argument,
        'a script variable name is letters, digits and _ (not starting with a digit)',
      );
    }
    let value: string | undefined;
    if (equals !== -1) value = body.slice(equals + 1);
    else {
      const next = argv[index + 1];
      if (next === undefined || next.startsWith('--')) {
        throw new ConfigError(argument, `needs a value (--args:${name} VALUE, or --args:${name}=VALUE)`);
      }
      value = next;
      index++;
    }
    if (values.has(name)) throw new ConfigError(argument, `--args:${name} is given twice`);
    values.set(name, value);
  }
  return { argv: rest, scriptArguments: Object.fromEntries(values), any: values.size > 0 };
}
