/**
 * Builds the yargs floor for `--help` (yargs-floor-program.ts) into one minified CommonJS file, with
 * the settings esbuild.config.mjs gives the executable's bundle, and returns its path.
 */
import { build } from 'esbuild';
import { join } from 'node:path';
import { REPOSITORY } from '../support/cli.js';

export async function buildYargsFloor(directory: string): Promise<string> {
  const outfile = join(directory, 'yargs-floor.cjs');
  await build({
    entryPoints: [join(REPOSITORY, 'test/bench/yargs-floor-program.ts')],
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    minify: true,
    keepNames: true,
    mainFields: ['module', 'main'],
    define: { 'import.meta.url': '__importMetaUrl' },
    banner: { js: 'var __importMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
    logLevel: 'warning',
  });
  return outfile;
}
