/**
 * createRunner end to end with a real MCP server and the real Ollama client against its fake: the
 * tool result reaches the model inside the untrusted-output envelope, the system prompt carries the
 * clause (unless turned off), budgets answer the model with the limit, and the audit log has the
 * session id, turn, server identity and result digest, rotating by size.
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRunner } from '../../src/index.js';
import { UNTRUSTED_CONTENT_CLAUSE } from '../../src/safety/untrusted-content.js';
import { startFakeOllama, textReply, toolCallReply, type FakeOllama } from '../fakes/ollama-server.js';
import { REPOSITORY, runCli, temporaryHome } from '../support/cli.js';

const goodServer = {
  command: process.execPath,
  args: [join(REPOSITORY, 'test/fixtures/servers/good-server.mjs')],
};
let ollama: FakeOllama | undefined;
let folder: string | undefined;

afterEach(async () => {
  await ollama?.close();
  ollama = undefined;
  if (folder !== undefined) await rm(folder, { recursive: true, force: true });
  folder = undefined;
});

interface ChatBody {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string }>;
}

function chatBodies(fake: FakeOllama): ChatBody[] {
  return fake.requests
    .filter((request) => request.path === '/api/chat')
    .map((request) => request.body as ChatBody);
}

describe('tool output is untrusted, end to end', () => {
  it('marks the result for the model and adds the clause by default, and audits with session, turn and identity', async () => {
    folder = await mkdtemp(join(tmpdir(), 'mcphost-untrusted-'));
    const auditLog = join(folder, 'audit.jsonl');
    ollama = await startFakeOllama([
      toolCallReply(['good__echo', { message: 'hi' }]),
      textReply('done'),
      toolCallReply(['good__echo', { message: 'again' }]),
      textReply('done again'),
    ]);
    const runner = await createRunner({
      model: 'ollama:mistral-small',
      providerUrl: ollama.url,
      mcpServers: { good: goodServer },
      systemPrompt: 'Be brief.',
      // Marking and the clause are on by default.
      safety: { auditLog },
      env: {},
    });
    const result = await runner.run('echo hi');
    await runner.run('once more');
    await runner.close();
    // The user's view (events, history) keeps the plain text; the model's request has the envelope.
    expect(result.toolCalls[0]?.result.content).toEqual([{ type: 'text', text: 'echo: hi' }]);
    const second = chatBodies(ollama)[1];
    expect(second?.messages[0]).toEqual({
      role: 'system',
      content: `Be brief.\n\n${UNTRUSTED_CONTENT_CLAUSE}`,
    });
    expect(second?.messages.at(-1)?.content).toBe(
      '<untrusted-tool-output source="good__echo">\necho: hi\n</untrusted-tool-output>',
    );
    const lines = (await readFile(auditLog, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ turn: 1, serverIdentity: { name: 'good-fixture', version: '1.0.0' } });
    expect(String((lines[0]?.serverIdentity as { command?: string }).command)).toContain('good-server.mjs');
    expect(lines[0]?.resultDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(lines[1]).toMatchObject({ turn: 2 });
    expect(lines[0]?.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(lines[1]?.sessionId).toBe(lines[0]?.sessionId);
  });

  it('sends no clause and no envelope when both are turned off', async () => {
    ollama = await startFakeOllama([toolCallReply(['good__echo', { message: 'hi' }]), textReply('done')]);
    const runner = await createRunner({
      model: 'ollama:mistral-small',
      providerUrl: ollama.url,
      mcpServers: { good: goodServer },
      safety: { untrustedContent: { markAsData: false, systemPromptClause: false } },
      env: {},
    });
    await runner.run('echo hi');
    await runner.close();
    const second = chatBodies(ollama)[1];
    expect(second?.messages.some((message) => message.role === 'system')).toBe(false);
    expect(second?.messages.at(-1)?.content).toBe('echo: hi');
  });

  it('answers a call past a budget with the limit, without running it', async () => {
    ollama = await startFakeOllama([
      toolCallReply(['good__echo', { message: 'one' }], ['good__echo', { message: 'two' }]),
      textReply('done'),
    ]);
    const runner = await createRunner({
      model: 'ollama:mistral-small',
      providerUrl: ollama.url,
      mcpServers: { good: goodServer },
      safety: { budgets: { tools: { good__echo: { maxCalls: 1 } } } },
      env: {},
    });
    const result = await runner.run('echo twice');
    await runner.close();
    const [first, second] = result.toolCalls.map((record) => record.result);
    expect(first?.isError).toBe(false);
    expect(second?.isError).toBe(true);
    expect(second?.content).toEqual([
      {
        type: 'text',
        text: 'The call to good__echo was not run: it is past the budget of tool good__echo: at most 1 tool calls (maxCalls), all used.',
      },
    ]);
  });

  it('rotates the audit log by size', async () => {
    folder = await mkdtemp(join(tmpdir(), 'mcphost-rotate-'));
    const auditLog = join(folder, 'audit.jsonl');
    const calls = Array.from({ length: 6 }, (_, index) => ['good__echo', { message: `m${index}` }] as const);
    ollama = await startFakeOllama([toolCallReply(...calls), textReply('done')]);
    const runner = await createRunner({
      model: 'ollama:mistral-small',
      providerUrl: ollama.url,
      mcpServers: { good: goodServer },
      safety: { auditLog, auditLogMaxBytes: 1500 },
      env: {},
    });
    await runner.run('echo six times');
    await runner.close();
    const files = (await readdir(folder)).sort();
    expect(files[0]).toBe('audit.jsonl');
    expect(files.length).toBeGreaterThan(1);
    let total = 0;
    for (const file of files) {
      const text = await readFile(join(folder, file), 'utf8');
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1500);
      total += text.trim().split('\n').length;
    }
    expect(total).toBe(6);
  });
});

describe('the command-line flags', () => {
  let home: Awaited<ReturnType<typeof temporaryHome>> | undefined;
  afterEach(async () => {
    await home?.remove();
    home = undefined;
  });

  /** Runs `-p` once with `flags`; resolves with the exit code, stderr and the model's last request. */
  async function runWith(...flags: string[]) {
    home = await temporaryHome();
    await home.writeConfig({ mcpServers: { good: goodServer } });
    const requests: ChatBody[] = [];
    ollama = await startFakeOllama([], {
      fallback: (request) => {
        requests.push(request);
        return request.messages.at(-1)?.role === 'tool'
          ? textReply('done')
          : toolCallReply(['good__echo', { message: 'hi' }]);
      },
    });
    const run = await runCli(
      ['-m', 'ollama:mistral-small', '--provider-url', ollama.url, '-p', 'echo', ...flags],
      home.path,
    );
    return { ...run, last: requests.at(-1) };
  }

  it('marks the result and adds the clause by default', async () => {
    const run = await runWith();
    expect(run.code).toBe(0);
    expect(run.last?.messages[0]).toEqual({ role: 'system', content: UNTRUSTED_CONTENT_CLAUSE });
    expect(run.last?.messages.at(-1)?.content).toBe(
      '<untrusted-tool-output source="good__echo">\necho: hi\n</untrusted-tool-output>',
    );
  });

  it('--no-mark-tool-output sends the plain result, keeping the clause', async () => {
    const run = await runWith('--no-mark-tool-output');
    expect(run.code).toBe(0);
    expect(run.last?.messages[0]?.role).toBe('system');
    expect(run.last?.messages.at(-1)?.content).toBe('echo: hi');
  });

  it('--no-untrusted-clause leaves the clause out, keeping the marking', async () => {
    const run = await runWith('--no-untrusted-clause');
    expect(run.code).toBe(0);
    expect(run.last?.messages.some((message) => message.role === 'system')).toBe(false);
    expect(run.last?.messages.at(-1)?.content).toContain('<untrusted-tool-output');
  });

  it('refuses an unknown --injection-policy with exit code 2 and one line', async () => {
    const run = await runWith('--injection-policy', 'loud');
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      'mcphost: --injection-policy: "loud" is not one of warn, ask, redact, block',
    );
  });
});
