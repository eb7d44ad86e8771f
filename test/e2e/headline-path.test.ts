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
import { startFakeOllama, textReply, toolCallReply } from '../fakes/ollama-server.js';
import { startFakeOpenAI, type RecordedOpenAIRequest } from '../fakes/openai-server.js';
import { npmServer, REPOSITORY, runCli, temporaryHome, type TemporaryHome } from '../support/cli.js';

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
