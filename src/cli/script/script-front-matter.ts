/**
 * The parts of a script file: an optional `#!` line, optional YAML front matter between two lines
 * of `---`, and the body (the prompt).
 *
 * ```
 * #!/usr/bin/env -S mcphost script
 * ---
 * model: ollama:qwen2.5:3b
 * ---
 * Summarize ${file:-README.md}.
 * ```
 */
import { ConfigError } from '../../core/errors.js';

/** A script file, split. */
export interface ScriptParts {
  /**
   * The front matter's YAML, padded with empty lines so that a YAML error's line number is the
   * line in the file. `undefined` when the file has no front matter.
   */
  readonly frontMatter: string | undefined;
  /** Everything after the front matter (or after the `#!` line when there is none). */
  readonly body: string;
  /** The file's line number of the body's first line (1-based). */
  readonly bodyLine: number;
}

const FENCE = /^---[ \t]*$/;

export function splitScript(text: string, path: string): ScriptParts {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  // The shebang is for the kernel: `#!/usr/bin/env -S mcphost script` runs `mcphost script FILE`.
  let start = lines[0]?.startsWith('#!') === true ? 1 : 0;
  // Blank lines before the front matter are allowed, but only when a fence follows.
  let first = start;
  while (first < lines.length && (lines[first] ?? '').trim() === '') first++;
  if (!FENCE.test(lines[first] ?? '')) {
    return { frontMatter: undefined, body: lines.slice(start).join('\n'), bodyLine: start + 1 };
  }
  const close = lines.findIndex((line, index) => index > first && FENCE.test(line));
  if (close === -1) {
    throw new ConfigError(
      path,
      `the front matter opened by --- on line ${first + 1} is never closed (end it with a line of ---)`,
    );
  }
  start = close + 1;
  const frontMatter = `${'\n'.repeat(first + 1)}${lines.slice(first + 1, close).join('\n')}`;
  return { frontMatter, body: lines.slice(start).join('\n'), bodyLine: start + 1 };
}
