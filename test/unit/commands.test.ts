/** Slash commands: parsing, each command against a fake context, and Tab completion. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { completeLine } from '../../src/cli/chat/completion.js';
import { createStyle } from '../../src/cli/chat/style.js';
import { UsageTotals } from '../../src/cli/chat/usage.js';
import {
  parseCommand,
  promptText,
  runCommand,
  SLASH_COMMANDS,
  type CommandContext,
  type CommandOutcome,
} from '../../src/cli/chat/slash-commands.js';
import { ConfigError } from '../../src/core/errors.js';
import type { ToolDescription } from '../../src/mcp/pool.js';
import type { ServerStatus } from '../../src/mcp/status.js';
import { Runner } from '../../src/core/runner.js';
import { ConversationRecorder } from '../../src/cli/sessions/conversation-recorder.js';
import { loadSavedConversation } from '../../src/conversation/saved-conversation.js';
import type { Message } from '../../src/core/types.js';
import { ScriptedProvider } from '../support/scripted-provider.js';

describe('parseCommand', () => {
  it('knows every command, with arguments and aliases', () => {
    /** The command's name and argument, or the unknown name. */
    const read = (line: string) => {
      const parsed = parseCommand(line);
      return parsed?.kind === 'command' ? [parsed.command.name, parsed.argument] : parsed;
    };
    expect(read('/help')).toEqual(['/help', '']);
    expect(read('  /TOOLS  ')).toEqual(['/tools', '']);
    expect(read('/servers')).toEqual(['/servers', '']);
    expect(read('/history')).toEqual(['/history', '']);
    expect(read('/clear')).toEqual(['/clear', '']);
    expect(read('/new')).toEqual(['/clear', '']);
    expect(read('/usage')).toEqual(['/usage', '']);
    expect(read('/quit')).toEqual(['/quit', '']);
    expect(read('/exit')).toEqual(['/quit', '']);
    expect(read('/model')).toEqual(['/model', '']);
    expect(read('/model ollama:qwen2.5:3b')).toEqual(['/model', 'ollama:qwen2.5:3b']);
    expect(read('/save "my chat.json"')).toEqual(['/save', 'my chat.json']);
    expect(read('/save')).toEqual(['/save', '']);
    expect(read('/resume 2')).toEqual(['/resume', '2']);
    // Every command in /help is one parseCommand knows by its name.
    for (const command of SLASH_COMMANDS) expect(read(command.name)).toEqual([command.name, '']);
  });

  it('hints at the closest command for a typo', () => {
    expect(parseCommand('/histry')).toEqual({ kind: 'unknown', name: '/histry', suggestion: '/history' });
    expect(parseCommand('/mod x')).toEqual({ kind: 'unknown', name: '/mod', suggestion: '/model' });
    expect(parseCommand('/frobnicate')).toEqual({
      kind: 'unknown',
      name: '/frobnicate',
      suggestion: undefined,
    });
  });

  it('leaves prompts alone: paths, plain text, and // for a leading slash', () => {
    expect(parseCommand('/etc/hosts: what is in it?')).toBeUndefined();
    expect(parseCommand('hello /help')).toBeUndefined();
    expect(parseCommand('//help is a command')).toBeUndefined();
    expect(promptText('//help is a command')).toBe('/help is a command');
    expect(promptText('plain')).toBe('plain');
  });
});

const tools: ToolDescription[] = [
  { exposedName: 'everything__echo', server: 'everything', tool: 'echo', description: 'Echoes\nsecond line' },
  { exposedName: 'everything__add', server: 'everything', tool: 'add', description: 'Adds two numbers' },
  {
    exposedName: 'my_server__long_1a2b',
    server: 'my server',
    tool: 'long',
    description: '\u001B[31mred\u001B[0m',
  },
];

const servers: ServerStatus[] = [
  {
    name: 'everything',
    transport: 'stdio',
    state: 'ready',
    toolCount: 2,
    stderrTail: [],
    pid: 4242,
    restarts: 0,
  },
  {
    name: 'broken',
    transport: 'stdio',
    state: 'failed',
    toolCount: 0,
    lastError: 'exited with code 1',
    stderrTail: [],
    restarts: 0,
  },
];

const history: Message[] = [
  { role: 'user', content: [{ type: 'text', text: 'What is\nin /tmp?' }] },
  { role: 'assistant', content: [{ type: 'tool-call', id: '1', name: 'fs__list', input: { path: '/tmp' } }] },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: '1',
        toolName: 'fs__list',
        content: [{ type: 'text', text: 'a.txt\nb.txt' }],
        isError: false,
      },
    ],
  },
  { role: 'assistant', content: [{ type: 'text', text: 'Two files.' }] },
];

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-commands-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

function context(overrides: Partial<CommandContext> = {}) {
  const runner = new Runner({ provider: new ScriptedProvider([]), history });
  let model = 'scripted:test';
  const switched: string[] = [];
  const base: CommandContext = {
    runner,
    describeTools: async () => tools,
    servers: () => servers,
    usage: new UsageTotals(),
    modelString: () => model,
    switchModel: async (next) => {
      if (!next.includes(':')) throw new ConfigError('/model', `"${next}" is not provider:model`);
      switched.push(next);
      model = next;
    },
    saveConversation: async (path) => {
      const file = resolve(folder, path);
      await new ConversationRecorder().saveCopy(runner, file);
      return file;
    },
    style: createStyle(false),
    columns: () => 80,
    debug: false,
  };
  return { context: { ...base, ...overrides }, runner, switched };
}

function shown(outcome: CommandOutcome): string {
  return outcome.kind === 'quit' ? '' : outcome.text;
}

async function textOf(line: string, given = context().context) {
  const command = parseCommand(line);
  if (command === undefined) throw new Error(`${line} is not a command`);
  return runCommand(command, given);
}

describe('runCommand', () => {
  it('/help lists every command', async () => {
    const outcome = await textOf('/help');
    expect(outcome.kind).toBe('show');
    for (const command of SLASH_COMMANDS) expect(shown(outcome)).toContain(command.name);
  });

  it('/tools groups by server with descriptions, and names an exposed alias', async () => {
    const outcome = await textOf('/tools');
    expect(outcome).toEqual({
      kind: 'show',
      text: [
        'everything (2 tools)',
        '  echo  Echoes',
        '  add   Adds two numbers',
        '',
        'my server (1 tool)',
        '  long (as my_server__long_1a2b)  red',
      ].join('\n'),
    });
  });

  it('/servers shows state, tool count, process and last error', async () => {
    const outcome = await textOf('/servers');
    expect(outcome).toEqual({
      kind: 'show',
      text: [
        '  everything  ready     2 tools   stdio, pid 4242',
        '  broken      failed    0 tools   stdio',
        '    last error: exited with code 1',
      ].join('\n'),
    });
  });

  it('/history shows the conversation, one line per part', async () => {
    const outcome = await textOf('/history');
    expect(outcome).toEqual({
      kind: 'show',
      text: [
        'you       What is in /tmp?',
        'assistant → fs__list {"path":"/tmp"}',
        'tool      ← a.txt',
        'assistant Two files.',
      ].join('\n'),
    });
  });

  it('/clear starts a new conversation', async () => {
    const { context: given, runner } = context();
    expect(runner.history).toHaveLength(4);
    expect(await textOf('/clear', given)).toEqual({ kind: 'show', text: 'Started a new conversation.' });
    expect(runner.history).toEqual([]);
  });

  it('/usage adds up what the providers reported', async () => {
    const { context: given } = context();
    expect(shown(await textOf('/usage', given))).toContain('no tokens yet');
    given.usage.addTurn();
    given.usage.addModelCall({ inputTokens: 1200, outputTokens: 30 });
    given.usage.addModelCall(undefined);
    expect(await textOf('/usage', given)).toEqual({
      kind: 'show',
      text: 'This session: 1 turn, 2 model calls\nTokens: 1,200 in · 30 out\nModel: scripted:test',
    });
  });

  it('/model switches, keeps the history, and keeps the old model on a bad string', async () => {
    const { context: given, runner, switched } = context();
    expect(shown(await textOf('/model', given))).toContain('Model: scripted:test');
    expect(await textOf('/model ollama:llama3.2', given)).toEqual({
      kind: 'show',
      text: 'Now using ollama:llama3.2; the conversation goes on.',
    });
    expect(switched).toEqual(['ollama:llama3.2']);
    expect(runner.history).toHaveLength(4);
    expect(await textOf('/model nonsense', given)).toEqual({
      kind: 'error',
      text: '/model: "nonsense" is not provider:model (still using ollama:llama3.2)',
    });
  });

  it('/save writes a session file that loads back', async () => {
    const { context: given } = context();
    const outcome = await textOf('/save chat.json', given);
    const file = join(folder, 'chat.json');
    expect(outcome).toEqual({ kind: 'show', text: `Saved the conversation (4 messages) to ${file}.` });
    expect((await loadSavedConversation(file)).messages).toEqual(history);
    expect(await textOf('/save', given)).toEqual({ kind: 'error', text: 'Usage: /save FILE' });
  });

  it('/save names a missing folder without the temporary file behind it', async () => {
    const { context: given } = context();
    const outcome = await textOf(`/save ${join(folder, 'missing', 'x.json')}`, given);
    expect(shown(outcome)).toBe(
      `Could not save: ${join(folder, 'missing', 'x.json')}: cannot save a session there: ${join(folder, 'missing')} is no such directory`,
    );
  });

  it('/save refuses to overwrite a file that is not a session', async () => {
    const { context: given } = context();
    await writeFile(join(folder, 'notes.txt'), 'my notes');
    const outcome = await textOf('/save notes.txt', given);
    expect(outcome.kind).toBe('error');
    expect(shown(outcome)).toMatch(/^Could not save: .*notes\.txt: /);
    expect(await readFile(join(folder, 'notes.txt'), 'utf8')).toBe('my notes');
  });

  it('an unknown command gets a hint; /quit quits', async () => {
    expect(await textOf('/servrs')).toEqual({
      kind: 'error',
      text: 'Unknown command /servrs — did you mean /servers? (/help lists them; nothing was sent to the model)',
    });
    expect(await textOf('/quit')).toEqual({ kind: 'quit' });
  });
});

describe('completeLine', () => {
  it('completes command names', () => {
    expect(completeLine('/he')).toEqual([['/help'], '/he']);
    expect(completeLine('/s')).toEqual([['/servers', '/skills', '/save'], '/s']);
    expect(completeLine('/mo')).toEqual([['/model '], '/mo']);
    expect(completeLine('/')[0]).toEqual(SLASH_COMMANDS.map((command) => command.name));
    expect(completeLine('/zzz')).toEqual([[], '/zzz']);
    expect(completeLine('hello')).toEqual([[], 'hello']);
  });

  it('completes providers (and given models) after /model', () => {
    expect(completeLine('/model ')).toEqual([['ollama:', 'anthropic:', 'google:', 'openai:', 'local:'], '']);
    expect(completeLine('/model an')).toEqual([['anthropic:'], 'an']);
    expect(completeLine('/model ol', ['ollama:qwen2.5:3b'])).toEqual([
      ['ollama:qwen2.5:3b', 'ollama:'],
      'ol',
    ]);
  });
});

describe('/permissions', () => {
  it('lists the answers kept for this folder and removes one or all', async () => {
    const { KeptPermissions } = await import('../../src/safety/kept-permissions.js');
    const permissions = await KeptPermissions.open({
      file: join(folder, 'permissions.json'),
      projectDir: folder,
    });
    const given = context({ permissions }).context;
    expect(shown(await textOf('/permissions', given))).toMatch(/^No "always allow" answer is kept for /);
    await permissions.keep({ server: 'files', tool: 'write' });
    await permissions.keep({ server: 'memory' });
    const listed = shown(await textOf('/permissions', given));
    expect(listed).toMatch(/ 1\. write of files {2}kept \d{4}-/);
    expect(listed).toMatch(/ 2\. every tool of memory {2}kept /);
    expect(await textOf('/permissions remove x', given)).toEqual({
      kind: 'error',
      text: '/permissions remove: "x" is not a number from the list, nor "all"',
    });
    expect(await textOf('/permissions remove 3', given)).toEqual({
      kind: 'error',
      text: '/permissions remove: there is no kept permission 3: give 1-2',
    });
    expect(shown(await textOf('/permissions remove 1', given))).toMatch(/^Removed 1 kept permission for /);
    expect(permissions.list().map((kept) => kept.server)).toEqual(['memory']);
    expect(shown(await textOf('/permissions remove all', given))).toMatch(/^Removed 1 kept permission/);
    expect(permissions.list()).toEqual([]);
  });
});
