/**
 * `mcphost batch FILE.jsonl --out results.jsonl`: reads the jobs, skips those the results file
 * already holds, runs the rest with {@link runBatch} (servers started once), appends each result
 * as it ends, shows progress on stderr, and ends with a summary and an exit code (docs/batch.md).
 */
import { readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { parseJobLines, type NumberedJob } from '../../batch/job.js';
import { ConfigError, messageOf } from '../../core/errors.js';
import { redactText } from '../../safety/redact.js';
import { stripControlCharacters } from '../../safety/output-limits.js';
import { JOB_DIR_VARIABLE, runBatch } from '../../setup/batch.js';
import type { HostEvent } from '../../setup/host-event.js';
import { readSystemPrompt } from '../../setup/system-prompt.js';
import type { CliOptions } from '../args.js';
import type { BatchCommand } from '../command-line/batch-tree.js';
import { ExitCode, signalExitCode, type ExitCodeValue } from '../exit-codes.js';
import { pathIn, userPath, type CliIO } from '../io.js';
import { readEarlySettings } from '../../../config/index.js';
import { startTelemetryExport } from '../telemetry-export.js';
import type { SignalSource } from '../run-command.js';
import { runnerOptionsFor } from '../runner-options.js';
import { BatchProgress } from './progress.js';
import { ResultsFile } from './results-file.js';

const HANDLED_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export async function runBatchCommand(
  command: BatchCommand,
  options: CliOptions,
  io: CliIO,
  signals: SignalSource,
): Promise<ExitCodeValue> {
  const jobsPath = userPath(io, command.file);
  const outPath = userPath(io, command.out);
  let text: string;
  try {
    text = await readFile(jobsPath, 'utf8');
  } catch (error) {
    throw new ConfigError(command.file, `cannot read the jobs file (${(error as Error).message})`);
  }
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const entries = parseJobLines(lines, {
    vars: command.vars,
    ...(command.template === undefined ? {} : { template: command.template }),
  });
  const say = (message: string): void => {
    io.stderr.write(`mcphost batch: ${stripControlCharacters(message)}\n`);
  };
  const invalid = entries.flatMap((entry) => (entry.kind === 'invalid' ? [entry.message] : []));
  for (const message of invalid) say(`${command.file}: ${message} (skipped)`);

  if (await sameFile(jobsPath, outPath)) {
    // Results appended to the jobs file would come back as jobs (or bad lines) on the next run.
    throw new ConfigError(
      `--out ${command.out}`,
      'is the jobs file itself; results need a file of their own',
    );
  }
  // A lost lock is said above the progress once there is one (it can only come later, from a timer).
  let warn = say;
  const { file: results, done } = await ResultsFile.open(outPath, { onWarning: (message) => warn(message) });
  const jobs: NumberedJob[] = [];
  let skipped = 0;
  for (const entry of entries) {
    if (entry.kind !== 'job') continue;
    const status = done.get(entry.job.key);
    if (status === 'ok' || (status === 'failed' && !command.retryFailed)) skipped += 1;
    else jobs.push(entry.job);
  }
  const terminal = (io.stderr as { isTTY?: boolean }).isTTY === true;
  const progress = new BatchProgress({
    stream: io.stderr,
    terminal,
    total: jobs.length,
    ...((io.stderr as { columns?: number }).columns === undefined
      ? {}
      : { columns: (io.stderr as { columns?: number }).columns }),
  });
  warn = (message) => progress.note(message);
  if (skipped > 0) say(`${skipped} job${skipped === 1 ? '' : 's'} already in ${command.out}: skipped`);

  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const listeners = HANDLED_SIGNALS.map((signal) => {
    const listener = (): void => {
      received ??= signal;
      controller.abort();
    };
    signals.on(signal, listener);
    return [signal, listener] as const;
  });
  const started = Date.now();
  let writeFailure: unknown;
  // One trace per job when an OTLP endpoint is given (docs/telemetry.md): exported before exit.
  const telemetry =
    jobs.length === 0
      ? undefined
      : (
          await readEarlySettings({
            homeDir: io.homeDir,
            // Only `telemetry` is read: a per-job server's `${MCPHOST_JOB_DIR}` needs a value to parse.
            env: { [JOB_DIR_VARIABLE]: tmpdir(), ...io.env },
            configPath: pathIn(io, options.configPath),
          })
        ).telemetry;
  const exporting =
    jobs.length === 0
      ? undefined
      : await startTelemetryExport(io.env, telemetry, (message) => progress.note(`warning: ${message}`));
  youngGenerationGrows(true);
  try {
    if (jobs.length > 0) {
      const systemPrompt = await readSystemPrompt(options.systemPrompt, io.cwd);
      const base = runnerOptionsFor({ options, script: undefined, session: {}, systemPrompt }, io);
      for await (const result of runBatch(jobs, {
        runner: {
          ...base,
          ...(telemetry?.captureContent === true ? { telemetry: { captureContent: true } } : {}),
          onEvent: (event) => {
            const note = noteFor(event, options.debug);
            if (note !== undefined) progress.note(note);
          },
        },
        signal: controller.signal,
        ...(command.concurrency === undefined ? {} : { concurrency: command.concurrency }),
        ...(command.retries === undefined ? {} : { retries: command.retries }),
        onProgress: (event) => {
          if (event.type === 'job-start') {
            // A retry is the same job still running.
            if (event.attempt === 1) progress.started();
          } else if (event.type === 'job-end') progress.ended();
          else {
            progress.note(
              `line ${event.job.line} failed (${event.error.kind}: ${event.error.message}); attempt ${event.attempt} in ${Math.round(event.delayMs / 1000)}s`,
            );
          }
        },
      })) {
        // Not awaited here, so results ending together share one flush (results-file.ts); each
        // counts as done once its line is on disk.
        results.append(result).then(
          () => progress.finished(result),
          (error: unknown) => {
            writeFailure ??= error;
            controller.abort();
          },
        );
      }
      await results.settled();
      if (writeFailure !== undefined) {
        throw new ConfigError(`--out ${command.out}`, `cannot write a result (${messageOf(writeFailure)})`);
      }
    }
  } finally {
    youngGenerationGrows(false);
    progress.end();
    await results.close();
    await exporting?.shutdown();
    for (const [signal, listener] of listeners) signals.off(signal, listener);
  }
  const { done: ran, failed } = progress.counts;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const parts = [
    `${ran - failed} ok`,
    `${failed} failed`,
    ...(skipped > 0 ? [`${skipped} skipped (already done)`] : []),
    ...(invalid.length > 0 ? [`${invalid.length} line${invalid.length === 1 ? '' : 's'} not a job`] : []),
  ];
  if (received !== undefined) {
    const left = jobs.length - ran;
    say(
      `stopped by ${received}: ${parts.join(', ')}; ${left} job${left === 1 ? '' : 's'} not done (run the same command again to go on)`,
    );
    return signalExitCode(received);
  }
  say(`${parts.join(', ')}; ${progress.counts.tokens} tokens; ${seconds}s; results in ${command.out}`);
  return failed > 0 || invalid.length > 0 ? ExitCode.batchFailures : ExitCode.ok;
}

/** Whether two paths name one file (the same path, a link to it); false when `b` does not exist yet. */
async function sameFile(a: string, b: string): Promise<boolean> {
  try {
    const [first, second] = await Promise.all([stat(a), stat(b)]);
    return first.dev === second.dev && first.ino === second.ino;
  } catch {
    return false;
  }
}

/**
 * The executable keeps V8's young generation at its first size (bin/mcphost.ts: peak RSS with many
 * servers). A batch is the opposite case: many jobs allocate fast and briefly, and at that size the
 * young generation was scavenged ~550 times in 1,000 one-tool-round jobs against ~60 when it may
 * grow, ~0.3–0.45 ms of host CPU a job (docs/batch.md, "Host cost"). So it may grow (V8's default
 * factor, 2) while the jobs run, and is set back after them: V8 refuses a code cache written under
 * other flags than it is read with, and the executable's cache is written at exit.
 */
function youngGenerationGrows(grows: boolean): void {
  setFlagsFromString(`--semi-space-growth-factor=${grows ? 2 : 1}`);
}

/** The host's notices worth a line above the progress (server failures, warnings, flagged content). */
function noteFor(event: HostEvent, debug: boolean): string | undefined {
  switch (event.type) {
    case 'server-log': {
      const { entry } = event;
      if (entry.level === 'warn') return redactText(entry.message);
      return debug ? `[${entry.server}] ${redactText(entry.message)}` : undefined;
    }
    case 'warning':
      return `warning: ${event.message}`;
    case 'tool-change':
      return [`warning: ${event.notice.summary}`, ...event.notice.changes].join('\n  ');
    case 'content-flagged': {
      const { source, origin, flag } = event.report;
      return `possible prompt injection in ${origin.kind === 'tool-result' ? `the result of ${source}` : source} (${flag.action}): ${flag.findings.join('; ')}`;
    }
    case 'server-log-message':
    case 'tool-progress':
    case 'offerings-change':
    case 'elicitation-outcome':
    case 'sampling-outcome':
      // Per-call detail a batch of many jobs does not show (the audit log keeps the calls).
      return undefined;
  }
}
