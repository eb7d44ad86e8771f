/**
 * Running the built CLI where `runCli` is not enough: a stdin left open, a signal sent mid-run,
 * a script file executed through its shebang.
 */
export { startCli, type RunningCli, type StartOptions } from '../support/cli.js';

/** Every line of stdout, parsed as JSON. */
export function jsonLines<T>(stdout: string): T[] {
  return stdout
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as T);
}
