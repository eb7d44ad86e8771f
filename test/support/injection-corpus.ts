/** The injection corpus of test/fixtures/injection: public attack examples and benign tool output. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const folder = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'injection');
const repository = join(folder, '..', '..', '..');

export interface CorpusEntry {
  readonly id: string;
  /** Where it comes from (attacks) or what kind of output it is (benign). */
  readonly source: string;
  readonly text: string;
}

/** Entries of a `=== id | source` file. */
function readEntries(file: string): CorpusEntry[] {
  const entries: CorpusEntry[] = [];
  let current: { id: string; source: string; lines: string[] } | undefined;
  const flush = () => {
    if (current !== undefined) {
      entries.push({ id: current.id, source: current.source, text: current.lines.join('\n') });
    }
  };
  for (const line of readFileSync(join(folder, file), 'utf8').split('\n')) {
    const header = /^=== (\S+) \| (.*)$/.exec(line);
    if (header !== null) {
      flush();
      current = { id: header[1] ?? '', source: header[2] ?? '', lines: [] };
    } else if (current !== undefined) current.lines.push(line);
    else if (!line.startsWith('#') && line.trim() !== '')
      throw new Error(`${file}: text before the first entry`);
  }
  flush();
  return entries.map((entry) => ({ ...entry, text: entry.text.replace(/\n$/, '') }));
}

export function attackCorpus(): CorpusEntry[] {
  return readEntries('attacks.txt');
}

/** Hand-written logs and command output, and the documentation and code files listed in benign-files.txt. */
export function benignCorpus(): CorpusEntry[] {
  const files = readFileSync(join(folder, 'benign-files.txt'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'));
  const fromFiles = files.map((path) => ({
    id: path,
    source: /readme/i.test(path) ? 'docs' : 'code',
    text: readFileSync(join(repository, path), 'utf8'),
  }));
  return [...readEntries('benign-logs.txt'), ...fromFiles];
}
