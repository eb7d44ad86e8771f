/**
 * In `-p` mode stdout holds the model's answer only. The `ollama` client mcphost once used printed
 * on some error answers (console.log on stdout for a non-JSON error body or an unreadable JSON one,
 * console.warn for a streamed line that is not JSON); this keeps those answers as a check on the
 * provider: run in a child process against them, it writes nothing to stdout, and nothing but the
 * child's own reports to stderr.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOllama, type FakeOllama, type FakeOllamaReply } from '../fakes/ollama-server.js';

const CHILD = fileURLToPath(new URL('./ollama-child.ts', import.meta.url));
/** The project root, where `--import tsx` is resolved from. */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Every answer on which the `ollama` client printed something. */
const PRINTING_REPLIES: readonly FakeOllamaReply[] = [
  { type: 'error', status: 502, body: '<html>Bad Gateway</html>', contentType: 'text/html' },
  { type: 'error', status: 500, body: '{"error": broken json', contentType: 'application/json' },
  { type: 'raw', body: 'not json at all\n' },
];

interface ChildOutput {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function runChild(url: string, count: number): Promise<ChildOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, url, String(count)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.once('error', reject);
    child.once('close', (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

const reports = (stderr: string): unknown[] =>
  stderr
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);

let fake: FakeOllama | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe('the Ollama provider prints nothing of a bad answer', () => {
  it('the provider writes nothing to stdout or stderr, and reports each failure', async () => {
    fake = await startFakeOllama(PRINTING_REPLIES);
    const output = await runChild(fake.url, PRINTING_REPLIES.length);
    expect(output.code).toBe(0);
    expect(output.stdout).toBe('');
    // Only the child's own JSON reports: a stray warning line would not parse.
    const containing = (text: string): unknown => expect.stringContaining(text);
    expect(reports(output.stderr)).toEqual([
      { outcome: 'ProviderError', status: 502, message: containing('<html>Bad Gateway</html>') },
      { outcome: 'ProviderError', status: 500, message: containing('{"error": broken json') },
      { outcome: 'ProviderError', message: containing('not JSON: not json at all') },
    ]);
  });
});
