/**
 * The question asked when the folder mcphost starts in has a project config (`.mcp.json`,
 * `.mcphost.*`) the user has not trusted yet: what would it start, and do they trust it?
 *
 * Everything shown comes from a stranger's file, so it is stripped of control characters first: an
 * escape sequence must not be able to hide the real command from the person asked to approve it.
 */
import { AbortedError } from '../core/errors.js';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { ProjectConfigCandidate } from '../../config/index.js';
import type { ServerDefinition } from '../mcp/definition.js';
import type { BuiltinServerSettings } from '../builtin/options.js';
import { stripControlCharacters } from '../safety/output-limits.js';
import type { PromptIO } from './prompts/ask-answer.js';

/** What the project file would start, as lines for the user. */
export function describeProjectConfig(project: ProjectConfigCandidate): string {
  const clean = (text: string) => stripControlCharacters(text);
  const lines = [
    `This folder has a project config that you have not trusted yet: ${clean(project.path)}`,
    'If you trust it, mcphost will run what it says, with your permissions:',
  ];
  const servers = Object.entries(project.servers);
  for (const [name, definition] of servers)
    lines.push(`  server ${JSON.stringify(clean(name))}: ${describeServer(definition)}`);
  for (const hook of project.hooks) {
    const matcher =
      hook.matcher === undefined ? '' : ` (tools matching ${JSON.stringify(clean(hook.matcher))})`;
    lines.push(`  hook ${hook.event}${matcher}: ${clean(hook.command)}`);
  }
  if (servers.length === 0 && project.hooks.length === 0) lines.push('  (no servers and no hooks)');
  if (project.disabledServers.length > 0) {
    lines.push(`It turns off these servers: ${project.disabledServers.map(clean).join(', ')}`);
  }
  lines.push(
    'Trust it only if you have read it, or trust whoever wrote it. You are asked again if it changes.',
  );
  return `${lines.join('\n')}\n`;
}

/** One server as a command line (or URL), with what else matters for trust. */
function describeServer(definition: ServerDefinition): string {
  const clean = (text: string) => stripControlCharacters(text);
  switch (definition.transport) {
    case 'stdio': {
      const command = [definition.command, ...definition.args]
        .map((part) => quoteForShell(clean(part)))
        .join(' ');
      const extras = [
        ...(definition.cwd === undefined ? [] : [`in ${clean(definition.cwd)}`]),
        ...(Object.keys(definition.env).length === 0
          ? []
          : [`with ${Object.keys(definition.env).map(clean).join(', ')} set`]),
        ...(definition.inheritEnv ? ['with your whole environment, API keys included'] : []),
      ];
      return extras.length === 0 ? command : `${command}  (${extras.join('; ')})`;
    }
    case 'http':
    case 'sse': {
      const headers = Object.keys(definition.headers);
      const sent = headers.length === 0 ? '' : `  (sending headers ${headers.map(clean).join(', ')})`;
      return `connects to ${clean(definition.url)}${sent}`;
    }
    case 'builtin':
      return `mcphost's built-in "${definition.builtin.name}" server${describeBuiltinReach(definition.builtin)}`;
    default: {
      const unexpected: never = definition;
      return JSON.stringify(unexpected);
    }
  }
}

/** What a built-in server can reach beyond its defaults, which is what trusting it means. */
function describeBuiltinReach(settings: BuiltinServerSettings): string {
  switch (settings.name) {
    case 'fs': {
      const directories = settings.options.allowedDirectories ?? [];
      return directories.length === 0
        ? ''
        : `  (files in ${directories.map(stripControlCharacters).join(', ')})`;
    }
    case 'bash':
      return settings.options.requireApproval === false ? '  (running commands without asking)' : '';
    case 'fetch':
      return settings.options.allowPrivateNetworks === true ? '  (reaching private networks)' : '';
    case 'todo':
      return '';
    default: {
      const unexpected: never = settings;
      return JSON.stringify(unexpected);
    }
  }
}

/** `a b` → `'a b'`: how the command would be typed, so the user sees where arguments split. */
function quoteForShell(part: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(part) ? part : `'${part.replace(/'/g, `'\\''`)}'`;
}

/** Shows what the file would start and asks; true only for an explicit yes. */
export async function askToTrustProject(project: ProjectConfigCandidate, io: PromptIO): Promise<boolean> {
  io.write(describeProjectConfig(project));
  let answer: string;
  try {
    answer = await io.ask('Trust this file and start them? [y/N] ');
  } catch (error) {
    // Ctrl-C means "stop", not "no, but go on"; ended input (Ctrl-D) is no answer: not trusted.
    if (error instanceof AbortedError) throw error;
    return false;
  }
  return /^\s*(y|yes)\s*$/i.test(answer);
}

/**
 * A {@link PromptIO} on a terminal, for questions asked before the chat starts (it opens its own
 * line editor afterwards). Ctrl-D while asking is no answer; Ctrl-C rejects with AbortedError, and
 * mcphost stops. Close it when done.
 */
export function terminalPrompt(input: Readable, output: Writable): PromptIO & { close(): void } {
  const lines = createInterface({ input, output, terminal: true });
  let closed = false;
  let interrupted = false;
  lines.on('SIGINT', () => {
    interrupted = true;
    output.write('\n');
    lines.close();
  });
  lines.on('close', () => {
    closed = true;
  });
  const ended = () =>
    interrupted ? new AbortedError('cancelled at the question') : new Error('input closed');
  return {
    ask: (question) =>
      new Promise((resolve, reject) => {
        if (closed) {
          reject(ended());
          return;
        }
        lines.once('close', () => reject(ended()));
        lines.question(question, resolve);
      }),
    write: (text) => output.write(text),
    close: () => lines.close(),
  };
}

/** `trustProject` for createRunner: asks on the terminal, once per untrusted file. */
export function terminalTrustPrompt(
  input: Readable,
  output: Writable,
): (project: ProjectConfigCandidate) => Promise<boolean> {
  return async (project) => {
    const prompt = terminalPrompt(input, output);
    try {
      return await askToTrustProject(project, prompt);
    } finally {
      prompt.close();
    }
  };
}
