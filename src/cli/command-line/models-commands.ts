/**
 * `mcphost models list|pull|rm`: what is downloaded for `local:` models, in the model cache folder
 * (`<cache>/models`, see src/util/user-folders.ts); `ollama:` models on the Ollama server
 * `OLLAMA_HOST` names, through its client (providers/ollama-models.ts).
 */
import { ConfigError } from '../../core/errors.js';
import { localModelsFolder } from '../../util/user-folders.js';
import type { ModelsCommand } from '../args.js';
import { ExitCode, type ExitCodeValue } from '../exit-codes.js';
import { notice, type CliIO } from '../io.js';
import { formatBytes, progressDrawer } from '../output/download-progress.js';

export interface ModelsCommandContext {
  readonly io: CliIO;
  /** Ctrl-C: stops a pull, keeping its partial file for the next one to resume. */
  readonly signal: AbortSignal;
}

/** A model argument: `local:NAME`, a bare NAME (local), or `ollama:NAME`. */
type ModelArgument =
  | { readonly provider: 'local'; readonly name: string }
  | { readonly provider: 'ollama'; readonly name: string };

function modelArgument(text: string, source: string): ModelArgument {
  const separator = text.indexOf(':');
  const provider = separator < 0 ? '' : text.slice(0, separator).toLowerCase();
  if (provider === 'local') return { provider: 'local', name: text.slice(separator + 1) };
  if (provider === 'ollama') return { provider: 'ollama', name: text.slice(separator + 1) };
  if (provider === 'anthropic' || provider === 'openai' || provider === 'google' || provider === 'gemini')
    throw new ConfigError(
      source,
      `${provider} models are not downloaded; models manages local: and ollama: models`,
    );
  // `hf:…`, a path, a short name: what follows `local:` may be given without it.
  return { provider: 'local', name: text };
}

export async function runModelsCommand(
  command: ModelsCommand,
  context: ModelsCommandContext,
): Promise<ExitCodeValue> {
  switch (command.action) {
    case 'list': {
      const provider = command.provider.toLowerCase();
      if (provider === 'ollama') return listOllama(context.io);
      if (provider !== 'local')
        throw new ConfigError('models list', `"${command.provider}" is not local or ollama`);
      return listLocal(context.io);
    }
    case 'pull': {
      const argument = command.model === undefined ? undefined : modelArgument(command.model, 'models pull');
      if (argument?.provider === 'ollama') return pullOllama(argument.name, context);
      return pullLocal(argument?.name, context);
    }
    case 'rm': {
      const argument = modelArgument(command.model, 'models rm');
      if (argument.provider === 'ollama') return removeOllama(argument.name, context.io);
      return removeLocal(argument.name, context.io);
    }
  }
}

/** The Ollama server `OLLAMA_HOST` names (else the local default), through its client. */
async function ollamaModelsOf(io: CliIO) {
  const { ollamaModels } = await import('../../../providers/ollama-models.js');
  return ollamaModels({ env: io.env });
}

async function listOllama(io: CliIO): Promise<ExitCodeValue> {
  const ollama = await ollamaModelsOf(io);
  const models = await ollama.list();
  if (models.length === 0) {
    io.stdout.write(`No models at Ollama ${ollama.host}. mcphost models pull ollama:NAME pulls one.\n`);
    return ExitCode.ok;
  }
  const width = Math.max(4, ...models.map((model) => model.name.length));
  const rows = models.map((model) => `${model.name.padEnd(width)}  ${formatBytes(model.size)}`);
  io.stdout.write([`${'NAME'.padEnd(width)}  SIZE`, ...rows].join('\n') + '\n');
  return ExitCode.ok;
}

/** A line on stderr as each step of the pull starts and as each layer completes. */
async function pullOllama(name: string, context: ModelsCommandContext): Promise<ExitCodeValue> {
  const { io } = context;
  if (name === '') throw new ConfigError('models pull', 'ollama: needs a model name (ollama:qwen2.5:3b)');
  const ollama = await ollamaModelsOf(io);
  const { pullProgressLine } = await import('../chat/model-pull.js');
  let status: string | undefined;
  for await (const event of ollama.pull(name, context.signal)) {
    if (event.type === 'done') break;
    const complete = event.type === 'progress' && event.total > 0 && event.completed === event.total;
    if (event.status !== status || complete) notice(io, pullProgressLine(event));
    status = event.status;
  }
  notice(io, `pulled ${name} into Ollama at ${ollama.host}`);
  return ExitCode.ok;
}

async function removeOllama(name: string, io: CliIO): Promise<ExitCodeValue> {
  const ollama = await ollamaModelsOf(io);
  await ollama.remove(name);
  notice(io, `removed ${name} from Ollama at ${ollama.host}`);
  return ExitCode.ok;
}

async function listLocal(io: CliIO): Promise<ExitCodeValue> {
  const { listLocalModels } = await import('../../../providers/local/model-files.js');
  const { describeRuntime } = await import('../../../providers/local/runtime-source.js');
  const folder = localModelsFolder(io.homeDir, io.env);
  const { models, partial } = await listLocalModels(folder);
  // Which llama.cpp runs them, and why (issue 40: the runtime is fetched for the machine's GPU).
  const runtime = await describeRuntime(io.homeDir, io.env);
  if (models.length === 0 && partial.length === 0) {
    io.stdout.write(`No local models downloaded yet (${folder}). mcphost models pull downloads one.\n`);
    io.stdout.write(`${runtime}\n`);
    return ExitCode.ok;
  }
  const rows = models.map((model) => [
    model.name ?? '(added by hand)',
    model.path,
    formatBytes(model.sizeBytes),
  ]);
  const widths = [0, 1].map((column) =>
    Math.max(...rows.map((row) => row[column]?.length ?? 0), column === 0 ? 4 : 4),
  );
  const line = (cells: readonly string[]) =>
    `${(cells[0] ?? '').padEnd(widths[0] ?? 0)}  ${(cells[1] ?? '').padEnd(widths[1] ?? 0)}  ${cells[2] ?? ''}`.trimEnd();
  if (rows.length > 0) io.stdout.write([line(['NAME', 'FILE', 'SIZE']), ...rows.map(line)].join('\n') + '\n');
  for (const file of partial)
    io.stdout.write(
      `partial download: ${file.path} (${formatBytes(file.sizeBytes)}; the next pull resumes it)\n`,
    );
  io.stdout.write(`${runtime}\n`);
  return ExitCode.ok;
}

async function pullLocal(name: string | undefined, context: ModelsCommandContext): Promise<ExitCodeValue> {
  const { io } = context;
  const { DEFAULT_LOCAL_MODEL, parseLocalModelName } =
    await import('../../../providers/local/model-names.js');
  const { ensureLocalModelFile } = await import('../../../providers/local/model-files.js');
  const reference = parseLocalModelName(name ?? DEFAULT_LOCAL_MODEL, {
    source: 'models pull',
    cwd: io.cwd,
    homeDir: io.homeDir,
  });
  const drawer = progressDrawer(io.stderr);
  const seen = { progress: false };
  try {
    const path = await ensureLocalModelFile(reference, {
      cacheFolder: localModelsFolder(io.homeDir, io.env),
      env: io.env,
      homeDir: io.homeDir,
      signal: context.signal,
      onProgress: (progress) => {
        seen.progress = true;
        drawer.onProgress(progress);
      },
    });
    drawer.finish();
    if (!seen.progress) notice(io, `${name ?? DEFAULT_LOCAL_MODEL} is already downloaded`);
    io.stdout.write(`${path}\n`);
    return ExitCode.ok;
  } finally {
    drawer.finish();
  }
}

async function removeLocal(name: string, io: CliIO): Promise<ExitCodeValue> {
  const { parseLocalModelName } = await import('../../../providers/local/model-names.js');
  const { removeLocalModel } = await import('../../../providers/local/model-files.js');
  const reference = parseLocalModelName(name, { source: 'models rm', cwd: io.cwd, homeDir: io.homeDir });
  const removed = await removeLocalModel(reference, localModelsFolder(io.homeDir, io.env));
  if (removed.length === 0)
    throw new ConfigError('models rm', `${name} is not downloaded (mcphost models list shows what is)`);
  for (const path of removed) io.stdout.write(`removed ${path}\n`);
  return ExitCode.ok;
}
