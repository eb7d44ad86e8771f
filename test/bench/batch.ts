/**
 * Bench 7 (issue 29): 1,000 jobs of one tool round each, concurrency 16, one shared server
 * (server-everything), the fake model answering at once. Host CPU per job (target ≤ 5 ms), printed
 * beside a loop of `-p` runs doing the same job (each a fresh process that starts its server).
 *
 * The batch's own CPU is read inside its process (process.cpuUsage, the server excluded): once for
 * `runBatch` in a program (test/bench/batch-child.mjs), once for `mcphost batch` as a user runs it
 * (the executable, a results file flushed per job, progress lines; read at exit by
 * test/bench/batch-cpu-at-exit.mjs, so node's start is included). For the comparison like for like, both are also run under `sh` and measured with its `times` (CPU of
 * every finished child: the host and the servers it started and reaped).
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startFakeOllama, textReply, toolCallReply, type FakeChatRequest } from '../fakes/ollama-server.js';
import { CLI, REPOSITORY, temporaryHome, EVERYTHING_SERVER, npmServer } from '../support/cli.js';

const JOBS = Number(process.env.BENCH_BATCH_JOBS ?? 1000);
const CONCURRENCY = 16;
const ONE_SHOT_RUNS = Number(process.env.BENCH_ONE_SHOT_RUNS ?? 20);

/** One tool round: echo first, then an answer once the tool result is there. */
function oneToolRound(request: FakeChatRequest) {
  return request.messages.at(-1)?.role === 'tool'
    ? textReply('done')
    : toolCallReply(['everything__echo', { message: 'hi' }]);
}

/** Runs `sh -c "<command>; times"` and returns the children's CPU (user + system) in ms, and stdout. */
function underShTimes(
  command: string,
  env: NodeJS.ProcessEnv,
): Promise<{ childCpuMs: number; stdout: string; wallMs: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('sh', ['-c', `${command}\ntimes`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      // `times` prints two lines: the shell's own user/system, then its children's.
      const lines = stdout.trimEnd().split('\n');
      const childLine = lines.at(-1) ?? '';
      const seconds = [...childLine.matchAll(/(\d+)m([\d.]+)s/g)].map(
        (match) => Number(match[1]) * 60 + Number(match[2]),
      );
      if (code !== 0 || seconds.length !== 2) {
        reject(new Error(`sh exited ${code}; stdout ${stdout}; stderr ${stderr}`));
        return;
      }
      resolve({
        childCpuMs: ((seconds[0] ?? 0) + (seconds[1] ?? 0)) * 1000,
        stdout: lines.slice(0, -2).join('\n'),
        wallMs,
      });
    });
  });
}

const quote = (text: string): string => `'${text.replaceAll("'", "'\\''")}'`;

export async function batchJobs(): Promise<void> {
  const ollama = await startFakeOllama([], { fallback: oneToolRound });
  const home = await temporaryHome();
  try {
    const env = { PATH: process.env.PATH, HOME: home.path };
    const child = [
      process.execPath,
      `${REPOSITORY}/test/bench/batch-child.mjs`,
      ollama.url,
      npmServer('everything'),
      String(JOBS),
      String(CONCURRENCY),
      home.path,
    ];
    const batch = await underShTimes(child.map(quote).join(' '), env);
    const figures = JSON.parse(batch.stdout) as {
      ok: number;
      toolCalls: number;
      cpuMs: number;
      wallMs: number;
    };
    if (figures.ok !== JOBS || figures.toolCalls !== JOBS) throw new Error(`batch bench: ${batch.stdout}`);

    await home.writeConfig({ mcpServers: { everything: EVERYTHING_SERVER } });
    const jobsFile = join(home.path, 'jobs.jsonl');
    await writeFile(jobsFile, Array.from({ length: JOBS }, (_, index) => `job ${index + 1}\n`).join(''));
    const cpuFile = join(home.path, 'batch-cpu.json');
    const cli = [
      process.execPath,
      '--import',
      `${REPOSITORY}/test/bench/batch-cpu-at-exit.mjs`,
      CLI,
      'batch',
      jobsFile,
      '--out',
      join(home.path, 'results.jsonl'),
      '--concurrency',
      String(CONCURRENCY),
      '-m',
      'ollama:mistral-small',
      '--provider-url',
      ollama.url,
    ];
    const cliRun = await underShTimes(`${cli.map(quote).join(' ')} 2>/dev/null`, {
      ...env,
      BENCH_CPU_FILE: cpuFile,
    });
    const cliCpu = JSON.parse(await readFile(cpuFile, 'utf8')) as { userMs: number; systemMs: number };
    const cliResults = (await readFile(join(home.path, 'results.jsonl'), 'utf8')).trim().split('\n');
    if (cliResults.length !== JOBS) throw new Error(`batch bench: ${cliResults.length} results of ${JOBS}`);
    const cliPerJob = (cliCpu.userMs + cliCpu.systemMs) / JOBS;

    const oneShot = Array.from({ length: ONE_SHOT_RUNS }, (_, index) =>
      [
        process.execPath,
        CLI,
        '-m',
        'ollama:mistral-small',
        '--provider-url',
        ollama.url,
        '-p',
        `job ${index + 1}`,
      ]
        .map(quote)
        .join(' '),
    ).join(' >/dev/null\n');
    const loop = await underShTimes(`${oneShot} >/dev/null`, env);

    const perJob = figures.cpuMs / JOBS;
    const verdict = perJob <= 5 ? 'meets' : 'MISSES';
    console.log(
      [
        `7. batch: ${JOBS} jobs of one tool round, concurrency ${CONCURRENCY}, one shared server, fake model at once`,
        `  runBatch host CPU ${figures.cpuMs.toFixed(0)} ms = ${perJob.toFixed(2)} ms a job (target ≤ 5 ms: ${verdict}); wall ${(figures.wallMs / 1000).toFixed(1)} s, ${(JOBS / (figures.wallMs / 1000)).toFixed(0)} jobs/s`,
        `  runBatch, all processes (host + server, node start included): ${(batch.childCpuMs / JOBS).toFixed(2)} ms CPU a job`,
        `  mcphost batch (the executable, results file, node start included): host CPU ${cliPerJob.toFixed(2)} ms a job (target ≤ 5 ms: ${cliPerJob <= 5 ? 'meets' : 'MISSES'}); all processes ${(cliRun.childCpuMs / JOBS).toFixed(2)} ms a job; wall ${(cliRun.wallMs / 1000).toFixed(1)} s`,
        `  loop of ${ONE_SHOT_RUNS} -p runs, all processes: ${(loop.childCpuMs / ONE_SHOT_RUNS).toFixed(0)} ms CPU a run, ${(loop.wallMs / ONE_SHOT_RUNS).toFixed(0)} ms wall a run`,
        `  a job in the batch costs ${((batch.childCpuMs / JOBS / (loop.childCpuMs / ONE_SHOT_RUNS)) * 100).toFixed(1)}% of a -p run's CPU`,
        '',
      ].join('\n'),
    );
  } finally {
    await home.remove();
    await ollama.close();
  }
}
