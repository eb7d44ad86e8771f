/**
 * What to do when a server behind `npx` fails to start for npx's own reasons, said after the
 * failure. Two are common on a first run: the package is still being downloaded when the start's
 * time is up (three `npx -y` servers at once on a slow link or a busy machine take longer than 30
 * s), and — after such a start was cut short — npx's cached copy of the package is left without
 * its dependencies, so every later start fails with Node's "Cannot find package" from inside
 * `_npx`, which npx never repairs by itself.
 */
/** Where npx keeps a package it ran: `…/_npx/<hash>/node_modules/…`. */
const NPX_COPY =
  /Cannot find (?:package|module) '[^']+' imported from (.*?[\\/]_npx[\\/][0-9a-f]+)[\\/]node_modules[\\/]/;

/** What failed, as the start saw it. */
export interface NpxStartFailure {
  readonly command: string;
  /** The server's stderr lines. */
  readonly stderr: readonly string[];
  /** The start's time ran out. */
  readonly timedOut: boolean;
}

/** A clause to add to the failure's line, or `undefined` when npx is not the likely cause. */
export function npxAdvice(failure: NpxStartFailure): string | undefined {
  for (const line of failure.stderr) {
    const copy = NPX_COPY.exec(line)?.[1];
    if (copy !== undefined) {
      return `npx's copy of the package in ${copy} is incomplete (an earlier install was cut short?): delete that folder and start again`;
    }
  }
  // Either separator: a config written on Windows names `…\npx.cmd`.
  const command = (failure.command.split(/[\\/]/).at(-1) ?? '').replace(/\.(cmd|exe)$/i, '');
  if (failure.timedOut && command === 'npx') {
    return 'npx may still have been downloading the package: run the command once by hand, or raise the server\'s "initTimeout" (ms)';
  }
  return undefined;
}
