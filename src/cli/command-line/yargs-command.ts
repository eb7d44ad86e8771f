/**
 * What every command of the yargs tree shares: one loose way to declare a command, and reading
 * its values as plain values that we check ourselves.
 */
import type { Argv, CommandModule } from 'yargs';

export type Values = Readonly<Record<string, unknown>>;

/**
 * One command. yargs' types infer each command's values from its builder; we read them as plain
 * values and check them ourselves, so one loose signature serves every command.
 */
export function command(
  parser: Argv,
  spec: string,
  describe: string,
  builder: (parser: Argv) => Argv,
  handler: (values: Values) => void,
): Argv {
  return parser.command({ command: spec, describe, builder, handler } as CommandModule);
}

export const noOptions = (parser: Argv): Argv => parser;

export function stringValue(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
