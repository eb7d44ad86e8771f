/** The package version, read from package.json next to the installed code. */
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  // Built code runs from dist/src, the bundled executable from dist/bin/chunks, sources (under tsx)
  // from src: try each.
  for (const relative of ['../../package.json', '../../../package.json', '../package.json']) {
    try {
      const data = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (data.name === 'mcphost' && typeof data.version === 'string') return data.version;
    } catch {
      // not there: try the next place
    }
  }
  return 'unknown';
}
