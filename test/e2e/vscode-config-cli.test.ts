/**
 * VS Code's config form end to end, as a user runs it: the built CLI in a throw-away HOME holding
 * VS Code's user `mcp.json` (inputs, `${input:id}`), `-p` with the input in `MCPHOST_INPUT_<ID>`,
 * the real server-everything reporting its environment, the fake Ollama as the model; and
 * `mcp add` writing either form, into a throw-away project folder.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textReply, toolCallReply, type FakeChatRequest } from '../fakes/ollama-server.js';
import { EVERYTHING_SERVER, runCli } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';
import { unwrapped } from '../support/untrusted.js';

const fixture = useCliFixture();

function vsCodeUserFile(): string {
  return join(fixture.home.path, '.config', 'Code', 'User', 'mcp.json');
}

async function writeJson(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, JSON.stringify(value, undefined, 2));
}

const withInput = {
  inputs: [{ type: 'promptString', id: 'api-token', description: 'The API token', password: true }],
  servers: {
    everything: { type: 'stdio', ...EVERYTHING_SERVER, env: { API_TOKEN: '${input:api-token}' } },
  },
};

function lastToolResult(request: FakeChatRequest | undefined): string {
  const tool = (request?.messages ?? []).filter((message) => message.role === 'tool').at(-1);
  return tool === undefined ? '' : unwrapped(tool.content);
}

describe("VS Code's config form", () => {
  it("-p reads VS Code's user mcp.json and takes the input from MCPHOST_INPUT_<ID>", async () => {
    await writeJson(vsCodeUserFile(), withInput);
    await fixture.startModel([toolCallReply(['everything__get-env', {}]), textReply('ok')]);
    const run = await runCli(
      ['-m', 'ollama:mistral-small', '--provider-url', fixture.model.url, '-p', 'show the env'],
      fixture.home.path,
      { env: { MCPHOST_INPUT_API_TOKEN: 'tok-from-env-42' } },
    );
    expect(run.stderr).not.toMatch(/warning|error/i);
    expect(run.code).toBe(0);
    expect(lastToolResult(fixture.model.chatRequests[1])).toContain('"API_TOKEN": "tok-from-env-42"');
  });

  it('-p without the variable stops with one line naming the file and the variable', async () => {
    await writeJson(vsCodeUserFile(), withInput);
    await fixture.startModel([textReply('never')]);
    const run = await runCli(
      ['-m', 'ollama:mistral-small', '--provider-url', fixture.model.url, '-p', 'hi'],
      fixture.home.path,
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr.trim().split('\n')).toEqual([
      `mcphost: ${vsCodeUserFile()}: inputs: "api-token" has no value: set MCPHOST_INPUT_API_TOKEN (only the chat asks for it)`,
    ]);
    expect(fixture.model.chatRequests).toEqual([]);
  });

  it('mcp add writes either form, atomically', async () => {
    const project = await fixture.temporaryFolder('mcphost-vscode-project-');
    const mcp = (...args: string[]) => runCli(['mcp', ...args], fixture.home.path, { cwd: project });
    // Into the project's .vscode/mcp.json, in VS Code's form (made with its folder).
    const added = await mcp('add', 'files', '--vscode', '-s', 'project', '--', 'npx', '-y', 'srv');
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    const vsCodeProject = join(project, '.vscode', 'mcp.json');
    expect(added.stdout).toBe(`added server "files" to ${vsCodeProject}\n`);
    expect(JSON.parse(await readFile(vsCodeProject, 'utf8'))).toEqual({
      servers: { files: { type: 'stdio', command: 'npx', args: ['-y', 'srv'] } },
    });
    // The project scope without --vscode now edits that file too: it is the project's config.
    const remote = await mcp('add', 'web', '-s', 'project', '-t', 'http', '--url', 'https://example.com/mcp');
    expect(remote.code).toBe(0);
    expect(JSON.parse(await readFile(vsCodeProject, 'utf8'))).toMatchObject({
      servers: { web: { type: 'http', url: 'https://example.com/mcp' } },
    });
    // Into the user's own config, in ours.
    const user = await mcp('add', 'mem', '--', 'node', 'server.js');
    expect(user.code).toBe(0);
    expect(JSON.parse(await readFile(join(fixture.home.path, '.mcp.json'), 'utf8'))).toEqual({
      mcpServers: { mem: { command: 'node', args: ['server.js'] } },
    });
    // An undeclared input is refused before anything is written, in one line.
    const bad = await mcp(
      'add-json',
      'x',
      '{"command":"node","args":["${input:nope}"]}',
      '--vscode',
      '-s',
      'project',
    );
    expect(bad.code).not.toBe(0);
    expect(bad.stderr.trim()).toBe(
      `mcphost: ${vsCodeProject}: servers.x.args[0]: \${input:nope} is not declared in "inputs"`,
    );
    // Written atomically: no temporary file left beside them.
    expect(await readdir(join(project, '.vscode'))).toEqual(['mcp.json']);
    const list = await mcp('list', '--names');
    expect(list.stdout.split('\n').filter((line) => line !== '')).toEqual(['mem']);
  });
});
