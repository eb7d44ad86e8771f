/**
 * The path a new user takes first (issue 26): a throw-away HOME whose `~/.mcp.json` is the README's
 * example (server-filesystem for `~/notes`, server-memory, server-everything; run through their
 * installed bins instead of `npx -y`), mcphost run with `-p` from another folder, no extra flag,
 * against the Ollama and the OpenAI-compatible fakes. The model's first request offers the
 * servers' own tools (not only `tool_search`), and a file in `~/notes` is read from the project
 * folder (server-filesystem keeps its folder: it is not handed the working folder as its root).
 */
import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic } from '../fakes/anthropic-server.js';
import { FAKE_GEMINI_KEY, startFakeGemini } from '../fakes/gemini-server.js';
import { startFakeOllama, textReply, toolCallReply } from '../fakes/ollama-server.js';
import { startFakeOpenAI, type RecordedOpenAIRequest } from '../fakes/openai-server.js';
import { startChatTerminal } from '../support/chat-terminal.js';
import { npmServer, REPOSITORY, runCli, temporaryHome, type TemporaryHome } from '../support/cli.js';
import { tmuxAvailable } from '../support/tmux.js';

/** The README's first JSON block, each `npx -y @modelcontextprotocol/server-NAME` run through its installed bin. */
async function readmeConfig(): Promise<{ mcpServers: Record<string, { command: string; args: string[] }> }> {
  const readme = await readFile(join(REPOSITORY, 'README.md'), 'utf8');
  const block = /```json\n([^]*?)\n```/.exec(readme)?.[1];
  if (block === undefined) throw new Error('README.md has no JSON example');
  const config = JSON.parse(block) as { mcpServers: Record<string, { command: string; args: string[] }> };
  for (const entry of Object.values(config.mcpServers)) {
    expect(entry.command).toBe('npx');
    const [yes, pkg, ...rest] = entry.args;
    expect(yes).toBe('-y');
    const name = /^@modelcontextprotocol\/server-(filesystem|memory|everything)$/.exec(pkg ?? '')?.[1];
    if (name === undefined)
      throw new Error(`the README example runs ${pkg ?? '?'}, which is not installed here`);
    entry.command = process.execPath;
    entry.args = [npmServer(name as 'filesystem' | 'memory' | 'everything'), ...rest];
  }
  return config;
}

let home: TemporaryHome;
let project: string;
let todo: string;

beforeAll(async () => {
  home = await temporaryHome();
  const homePath = await realpath(home.path);
  project = join(homePath, 'project');
  await mkdir(project);
  await mkdir(join(homePath, 'notes'));
  todo = join(homePath, 'notes', 'todo.md');
  await writeFile(todo, '- buy milk\n');
  const config = await readmeConfig();
  expect(JSON.stringify(config)).toContain('"~/notes"');
  await home.writeConfig(config);
});
afterAll(async () => {
  await home.remove();
});

/** Tool names of the servers the README configures, as the model must see them. */
const SERVER_TOOLS = ['filesystem__read_text_file', 'memory__read_graph', 'everything__echo'];

describe('the README example with -p, run from another folder', () => {
  it('Ollama: the first request offers the servers’ tools, and the notes file is read', async () => {
    // The model's Modelfile sets num_ctx 32768 (mcphost reads the window Ollama runs it with). Left
    // at Ollama's 4,096, the ~6k tokens of these 40 definitions could not fit: the search is right then.
    const ollama = await startFakeOllama(
      [toolCallReply(['filesystem__read_text_file', { path: '~/notes/todo.md' }]), textReply('Buy milk.')],
      { numCtx: 32_768 },
    );
    try {
      const result = await runCli(
        ['-m', 'ollama:mistral-small', '-p', 'What is on my todo list?'],
        home.path,
        {
          cwd: project,
          env: { OLLAMA_HOST: ollama.url },
          timeoutMs: 60_000,
        },
      );
      expect(result.stderr).not.toContain('tool search on');
      expect(result.code).toBe(0);
      const first = (ollama.chatRequests[0]?.tools ?? []).map((tool) => tool.function.name);
      expect(first).toEqual(expect.arrayContaining(SERVER_TOOLS));
      expect(first).not.toContain('tool_search');
      const answer = JSON.stringify(ollama.chatRequests[1]?.messages.at(-1));
      expect(answer).toContain('buy milk');
      expect(answer).not.toMatch(/Access denied|outside allowed/);
      expect(result.stdout).toContain('Buy milk.');
      // The window mcphost chose (here the Modelfile's 32k), sent with every request.
      expect(ollama.chatRequests.map((request) => request.options?.num_ctx)).toEqual([32_768, 32_768]);
    } finally {
      await ollama.close();
    }
  });

  it('an OpenAI-compatible server (a model mcphost does not know): the same', async () => {
    const seen: RecordedOpenAIRequest[] = [];
    const openai = await startFakeOpenAI(
      (request, index) => {
        seen.push(request);
        return index === 0
          ? {
              type: 'tool-calls',
              calls: [
                {
                  id: 'call_1',
                  name: 'filesystem__read_text_file',
                  arguments: JSON.stringify({ path: todo }),
                },
              ],
            }
          : { type: 'text', text: 'Buy milk.' };
      },
      { apiKey: 'sk-local' },
    );
    try {
      const result = await runCli(
        ['-m', 'openai:qwen2.5-coder', '-p', 'What is on my todo list?'],
        home.path,
        {
          cwd: project,
          env: { OPENAI_API_KEY: 'sk-local', OPENAI_BASE_URL: openai.url },
          timeoutMs: 60_000,
        },
      );
      expect(result.stderr).not.toContain('tool search on');
      expect(result.code).toBe(0);
      const tools = (seen[0]?.body.tools ?? []) as Array<{ function: { name: string } }>;
      const first = tools.map((tool) => tool.function.name);
      expect(first).toEqual(expect.arrayContaining(SERVER_TOOLS));
      expect(first).not.toContain('tool_search');
      const answer = JSON.stringify((seen[1]?.body.messages as unknown[]).at(-1));
      expect(answer).toContain('buy milk');
      expect(result.stdout).toContain('Buy milk.');
    } finally {
      await openai.close();
    }
  });

  it('mcp get shows the filesystem server keeping ~/notes, the others the working folder', async () => {
    const filesystem = await runCli(['mcp', 'get', 'filesystem'], home.path, { cwd: project });
    expect(filesystem.stdout).toContain(
      `  roots: ${join(await realpath(home.path), 'notes')} (named in its arguments)\n`,
    );
    const memory = await runCli(['mcp', 'get', 'memory'], home.path, { cwd: project });
    expect(memory.stdout).toContain(`  roots: ${project} (the working folder)\n`);
  });
});

describe('the README example with -p, the cloud vendors', () => {
  it('Anthropic: the first request offers the servers’ tools, and the notes file is read', async () => {
    const anthropic = await startFakeAnthropic((request, index) => {
      if (index === 0) {
        return {
          type: 'answer',
          content: [
            { type: 'tool_use', id: 'toolu_01', name: 'filesystem__read_text_file', input: { path: todo } },
          ],
        };
      }
      const messages = (request.body as { messages: unknown[] }).messages;
      return { type: 'answer', content: [{ type: 'text', text: `saw ${JSON.stringify(messages.at(-1))}` }] };
    });
    try {
      const result = await runCli(
        [
          '-m',
          'anthropic:claude-sonnet-4-5',
          '-p',
          'What is on my todo list?',
          '--provider-url',
          anthropic.url,
        ],
        home.path,
        { cwd: project, env: { ANTHROPIC_API_KEY: 'sk-ant-test' }, timeoutMs: 60_000 },
      );
      expect(result.code, result.stderr).toBe(0);
      const body = anthropic.requests[0]?.body as { tools?: Array<{ name: string }> };
      const first = (body.tools ?? []).map((tool) => tool.name);
      expect(first).toEqual(expect.arrayContaining(SERVER_TOOLS));
      expect(first).not.toContain('tool_search');
      expect(result.stdout).toContain('buy milk');
    } finally {
      await anthropic.close();
    }
  });

  it('Gemini: the first request offers the servers’ tools, and the notes file is read', async () => {
    const gemini = await startFakeGemini((request, index) => {
      if (index === 0) {
        return {
          type: 'answer',
          parts: [{ type: 'function-call', name: 'filesystem__read_text_file', args: { path: todo } }],
        };
      }
      const contents = (request.body as { contents: unknown[] }).contents;
      return { type: 'answer', parts: [{ type: 'text', text: `saw ${JSON.stringify(contents.at(-1))}` }] };
    });
    try {
      const result = await runCli(
        ['-m', 'gemini:gemini-2.5-flash', '-p', 'What is on my todo list?', '--provider-url', gemini.url],
        home.path,
        { cwd: project, env: { GEMINI_API_KEY: FAKE_GEMINI_KEY }, timeoutMs: 60_000 },
      );
      expect(result.code, result.stderr).toBe(0);
      const body = gemini.requests[0]?.body as {
        tools?: Array<{ functionDeclarations?: Array<{ name: string }> }>;
      };
      const first = (body.tools ?? []).flatMap((tool) =>
        (tool.functionDeclarations ?? []).map((item) => item.name),
      );
      expect(first).toEqual(expect.arrayContaining(SERVER_TOOLS));
      expect(first).not.toContain('tool_search');
      expect(result.stdout).toContain('buy milk');
    } finally {
      await gemini.close();
    }
  });
});

describe('a lone server whose command is mistyped', () => {
  it('is named with its cause on stderr, and the run goes on without it', async () => {
    const lone = await temporaryHome();
    const ollama = await startFakeOllama([textReply('hello')]);
    try {
      await lone.writeConfig({
        mcpServers: {
          filesystem: { command: 'npxx', args: ['-y', '@modelcontextprotocol/server-filesystem', '~/notes'] },
        },
      });
      const result = await runCli(['-m', 'ollama:mistral-small', '-p', 'hi'], lone.path, {
        env: { OLLAMA_HOST: ollama.url },
        timeoutMs: 60_000,
      });
      expect(result.stderr).toContain('server "filesystem" failed to start: no such command "npxx"');
      // The documented rule (docs/scripting.md): a run goes on without a server that failed, said on
      // stderr; the exit code is the model's outcome.
      expect(result.stdout).toContain('hello');
      expect(result.code).toBe(0);
    } finally {
      await ollama.close();
      await lone.remove();
    }
  });
});

describe.skipIf(!tmuxAvailable())('the README example in the chat, run from another folder', () => {
  it('reads without asking and asks before a write; a denied write leaves no file', async () => {
    const written = join(await realpath(home.path), 'notes', 'new.md');
    const ollama = await startFakeOllama([], {
      numCtx: 32_768,
      fallback: (request) => {
        const last = request.messages.at(-1);
        if (last?.role === 'tool')
          return textReply(`tool said: ${JSON.stringify(last.content).slice(0, 120)}`);
        return String(last?.content).includes('write')
          ? toolCallReply(['filesystem__write_file', { path: written, content: 'from the model' }])
          : toolCallReply(['filesystem__read_text_file', { path: todo }]);
      },
    });
    const chat = await startChatTerminal({
      home: home.path,
      providerUrl: ollama.url,
      cwd: project,
      args: ['-m', 'ollama:mistral-small', '--no-color'],
      columns: 200,
    });
    try {
      await chat.waitFor('mistral-small ›');
      chat.type('read my list');
      chat.keys('Enter');
      await chat.waitFor('buy milk');
      expect(chat.capture()).not.toContain('Allow?');
      chat.type('now write a note');
      chat.keys('Enter');
      expect(await chat.waitFor('Allow?')).toContain('filesystem__write_file');
      chat.type('n not now');
      chat.keys('Enter');
      await chat.waitFor(/tool said: .*denied.*not now/);
      await expect(readFile(written, 'utf8')).rejects.toThrow(/ENOENT/);
      chat.keys('C-d');
      expect(await chat.waitForExit()).toBe(0);
    } finally {
      await chat.close();
      await ollama.close();
    }
  });
});
