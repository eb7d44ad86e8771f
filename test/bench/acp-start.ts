/**
 * `mcphost acp` answers `initialize` within 1.5 × the one-shot start (issue 36): an editor starts
 * the agent when a chat panel opens, and waits for this answer before it shows anything.
 *
 *   one-shot: `mcphost -p hi` with no server against the fake Ollama, spawn to exit;
 *   acp:      `mcphost acp`, spawn to the `initialize` response on stdout (then stdin is closed).
 *
 * Measured in turns (one-shot, acp, one-shot, …), as the cold path is, in one HOME with no config.
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { startFakeOllama, textReply } from '../fakes/ollama-server.js';
import { CLI, temporaryHome } from '../support/cli.js';
import { median, timeCommand } from './measure.js';

const REPEATS = Number(process.env.BENCH_REPEATS ?? 5);
const TARGET = 1.5;

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: 1, clientCapabilities: {} },
})}\n`;

/** Spawn to the first stdout line (the initialize answer), in ms; the agent is then let go. */
function timeInitialize(env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [CLI, 'acp'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let answeredAt: number | undefined;
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (answeredAt !== undefined || !stdout.includes('\n')) return;
      answeredAt = performance.now() - started;
      const answer = JSON.parse(stdout.slice(0, stdout.indexOf('\n'))) as {
        result?: { protocolVersion?: number };
      };
      if (answer.result?.protocolVersion !== 1) reject(new Error(`not an initialize answer: ${stdout}`));
      child.stdin.end();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (answeredAt === undefined || code !== 0) reject(new Error(`mcphost acp exited ${code}: ${stderr}`));
      else resolve(answeredAt);
    });
    child.stdin.write(INITIALIZE);
  });
}

export async function acpStart(): Promise<void> {
  const ollama = await startFakeOllama([], { fallback: textReply('ok') });
  const home = await temporaryHome();
  const env = { PATH: process.env.PATH, HOME: home.path };
  try {
    const oneShot = () => timeCommand(process.execPath, [CLI, '-p', 'hi', '--provider-url', ollama.url], env);
    const acp = () => timeInitialize(env);
    await oneShot(); // warm the file cache (and Node's compile cache)
    await acp();
    const oneShots: number[] = [];
    const initializes: number[] = [];
    for (let round = 0; round < REPEATS; round++) {
      oneShots.push(await oneShot());
      initializes.push(await acp());
    }
    const [shot, init] = [median(oneShots), median(initializes)];
    const ratio = init / shot;
    console.log(
      `ACP start (issue 36)\n  mcphost acp answers initialize in ${init.toFixed(0)} ms vs the one-shot start ` +
        `${shot.toFixed(0)} ms: ${ratio.toFixed(2)}× (target ≤ ${TARGET}×: ${ratio <= TARGET ? 'meets' : 'MISSES'})\n`,
    );
  } finally {
    await ollama.close();
    await home.remove();
  }
}
