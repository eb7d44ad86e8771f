/**
 * The host's resource tools end to end, as a user runs them: the built CLI with `-p`, the fake
 * Ollama playing a model that lists and reads resources through `list_mcp_resources` and
 * `read_mcp_resource`, the real server-everything (resources and templates), and a fixture that
 * pages its lists, serves an image and a text that tries an injection, and adds a resource.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textReply, toolCallReply, type FakeChatRequest } from '../fakes/ollama-server.js';
import { EVERYTHING_SERVER, REPOSITORY, npmServerConfig, runCli } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';
import { unwrapped } from '../support/untrusted.js';

const fixture = useCliFixture();

const LIST = 'list_mcp_resources';
const READ = 'read_mcp_resource';

function pagedServer(env: Record<string, string> = {}) {
  return {
    command: process.execPath,
    args: [join(REPOSITORY, 'test/fixtures/servers/paged-resources.mjs')],
    env,
  };
}

function mcphost(prompt: string) {
  return runCli(
    ['-m', 'ollama:mistral-small', '--provider-url', fixture.model.url, '-p', prompt],
    fixture.home.path,
  );
}

function toolNames(request: FakeChatRequest | undefined): string[] {
  return (request?.tools ?? []).map((tool) => tool.function.name);
}

/** The tool results of this request, in order, unwrapped from the untrusted-output envelope. */
function toolResults(request: FakeChatRequest | undefined): string[] {
  return (request?.messages ?? [])
    .filter((message) => message.role === 'tool')
    .map((message) => unwrapped(message.content));
}

interface Listed {
  servers: Array<{
    server: string;
    resources: Array<{ uri: string; name: string }>;
    templates: Array<{ uriTemplate: string; name: string }>;
    nextCursor?: string;
  }>;
}

describe('resource tools', () => {
  it("lists and reads server-everything's resources and templates, text and binary", async () => {
    await fixture.home.writeConfig({ mcpServers: { everything: EVERYTHING_SERVER } });
    await fixture.startModel([
      toolCallReply([LIST, {}]),
      toolCallReply(
        [READ, { server: 'everything', uri: 'demo://resource/static/document/features.md' }],
        [READ, { server: 'everything', uri: 'demo://resource/dynamic/text/3' }],
        [READ, { server: 'everything', uri: 'demo://resource/dynamic/blob/2' }],
        [READ, { server: 'nowhere', uri: 'demo://x' }],
      ),
      textReply('done'),
    ]);
    const run = await mcphost('what can you read?');
    expect(run.stderr).not.toMatch(/warning|error/i);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('done');
    const [first, second, third] = fixture.model.chatRequests;
    expect(toolNames(first)).toEqual(expect.arrayContaining([LIST, READ, 'everything__echo']));
    const listed = JSON.parse(toolResults(second)[0] ?? '{}') as Listed;
    const everything = listed.servers.find((server) => server.server === 'everything');
    expect(everything?.resources.map((resource) => resource.uri)).toContain(
      'demo://resource/static/document/features.md',
    );
    expect(everything?.templates.map((template) => template.uriTemplate)).toEqual(
      expect.arrayContaining([
        'demo://resource/dynamic/text/{resourceId}',
        'demo://resource/dynamic/blob/{resourceId}',
      ]),
    );
    const [document, text, blob, unknown] = toolResults(third).slice(-4);
    expect(document).toContain(
      '<resource server="everything" uri="demo://resource/static/document/features.md"',
    );
    expect(text).toContain('Resource 3: This is a plaintext resource created at');
    // A blob the model cannot take is a note, as for an `@everything:…` attachment.
    expect(blob).toMatch(
      /uri="demo:\/\/resource\/dynamic\/blob\/2" type="text\/plain"> \[binary content, \d+ bytes, left out/,
    );
    expect(unknown).toBe('Error: no server "nowhere" with resources (servers with resources: "everything")');
  });

  it('pages through lists with the cursor, reads an image, and screens what is read', async () => {
    await fixture.home.writeConfig({ mcpServers: { paged: pagedServer() } });
    const cursorOf = (request: FakeChatRequest): string =>
      (JSON.parse(toolResults(request).at(-1) ?? '{}') as Listed).servers[0]?.nextCursor ?? 'none';
    await fixture.startModel([
      toolCallReply([LIST, { server: 'paged' }]),
      (request) => toolCallReply([LIST, { server: 'paged', cursor: cursorOf(request) }]),
      (request) => toolCallReply([LIST, { server: 'paged', cursor: cursorOf(request) }]),
      toolCallReply([LIST, { cursor: 'abc' }], [LIST, { server: 'paged', cursor: 'not-ours' }]),
      toolCallReply(
        [READ, { server: 'paged', uri: 'paged://pixel.png' }],
        [READ, { server: 'paged', uri: 'paged://note' }],
      ),
      textReply('read them'),
    ]);
    const run = await mcphost('read the pages');
    expect(run.code).toBe(0);
    const requests = fixture.model.chatRequests;
    const pages = [1, 2, 3].map((index) => JSON.parse(toolResults(requests[index]).at(-1) ?? '{}') as Listed);
    expect(pages.map((page) => page.servers[0]?.resources.map((resource) => resource.name))).toEqual([
      ['one', 'two'],
      ['pixel', 'note'],
      ['five'],
    ]);
    expect(pages.map((page) => page.servers[0]?.templates.map((template) => template.name))).toEqual([
      ['item', 'user'],
      ['day'],
      [],
    ]);
    expect(pages[2]?.servers[0]?.nextCursor).toBeUndefined();
    const [noServer, notOurs] = toolResults(requests[4]).slice(-2);
    expect(noServer).toBe(`Error: ${LIST}: a "cursor" needs the "server" whose page gave it.`);
    expect(notOurs).toBe(
      `Error: ${LIST}: "cursor" is not one this tool gave; call without it for the first page.`,
    );
    // The image reaches the model as an image, as an attached one does.
    const last = requests[5];
    const toolMessages = (last?.messages ?? []).filter((message) => message.role === 'tool');
    expect(toolMessages.some((message) => (message.images ?? []).length === 1)).toBe(true);
    // The injection in the note is flagged (the default policy: warn, shown, the user told).
    expect(run.stderr).toContain(
      `mcphost: possible prompt injection in the result of ${READ} (shown): tells the model to ignore its instructions`,
    );
  });

  it('offers the tools only while a server has resources: they appear when a resource is added', async () => {
    await fixture.home.writeConfig({
      mcpServers: { paged: pagedServer({ PAGED_RESOURCES_EMPTY: '1' }) },
    });
    await fixture.startModel([
      toolCallReply(['paged__add_resource', {}]),
      toolCallReply([READ, { server: 'paged', uri: 'paged://added' }]),
      textReply('ok'),
    ]);
    const run = await mcphost('add one');
    expect(run.code).toBe(0);
    const [first, second, third] = fixture.model.chatRequests;
    expect(toolNames(first)).toEqual(['paged__add_resource']);
    expect(toolNames(second)).toEqual(['paged__add_resource', LIST, READ]);
    expect(toolResults(third).at(-1)).toContain('added contents');
  });

  it('offers no resource tool when no server has resources', async () => {
    const notes = await fixture.temporaryFolder('mcphost-resource-tools-');
    await fixture.home.writeConfig({ mcpServers: { filesystem: npmServerConfig('filesystem', notes) } });
    await fixture.startModel([textReply('nothing to read')]);
    const run = await mcphost('hello');
    expect(run.code).toBe(0);
    const names = toolNames(fixture.model.chatRequests[0]);
    expect(names.length).toBeGreaterThan(0);
    expect(names.filter((name) => name.includes('resource'))).toEqual([]);
  });
});
