/* global process */
// Preloaded (`node --import`) by modules-run.ts: at exit, appends the Node built-in modules the
// process loaded (`process.moduleLoadList`), one `node-internal:NAME` a line, to $INTERNAL_MODULES_LOG.
// V8's coverage (what modules-run.ts reads for everything else) says which built-in functions ran,
// not which modules were loaded: this list is Node's own record of the latter.
import { appendFileSync } from 'node:fs';

const log = process.env.INTERNAL_MODULES_LOG;
if (log !== undefined) {
  process.once('exit', () => {
    const internal = process.moduleLoadList
      .filter((entry) => entry.startsWith('NativeModule '))
      .map((entry) => `node-internal:${entry.slice('NativeModule '.length)}\n`);
    appendFileSync(log, internal.join(''));
  });
}
