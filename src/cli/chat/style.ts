/**
 * Colors for the chat, from chalk with an explicit level: whether to color is decided once, from
 * our own view of the terminal and the environment (NO_COLOR, --no-color), not by chalk's guess
 * about `process.stdout`, so that injected streams in tests behave like the real ones.
 */
import { Chalk } from 'chalk';

type Paint = (text: string) => string;

/** The handful of styles the chat uses. With colors off, each returns its text unchanged. */
export interface Style {
  readonly enabled: boolean;
  readonly dim: Paint;
  readonly bold: Paint;
  readonly italic: Paint;
  readonly red: Paint;
  readonly green: Paint;
  readonly yellow: Paint;
  readonly cyan: Paint;
  readonly magenta: Paint;
  readonly gray: Paint;
}

/** 256 colors: every terminal worth the name has them, and we use nothing finer. */
const COLOR_LEVEL = 2;

export function createStyle(enabled: boolean): Style {
  const chalk = new Chalk({ level: enabled ? COLOR_LEVEL : 0 });
  return {
    enabled,
    dim: (text) => chalk.dim(text),
    bold: (text) => chalk.bold(text),
    italic: (text) => chalk.italic(text),
    red: (text) => chalk.red(text),
    green: (text) => chalk.green(text),
    yellow: (text) => chalk.yellow(text),
    cyan: (text) => chalk.cyan(text),
    magenta: (text) => chalk.magenta(text),
    gray: (text) => chalk.gray(text),
  };
}
