/**
 * Pinned tool definitions through the library: createRunner with a throw-away HOME (the pin file
 * in its state folder), the real Ollama client against its loopback fake, and a fixture server
 * whose `lookup` tool changes between starts (TOOL_VARIANT) or live (its `swap` tool, announced
 * with `notifications/tools/list_changed`). Each policy: `warn` (default), `ask` (scripted
 * answers, and no one to ask), `block`.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRunner, type UserQuestions } from '../../src/index.js';
import type { ToolChangeReview } from '../../src/core/questions.js';
import { ToolPinStore } from '../../src/safety/tool-pin-store.js';
import type { ToolChangePolicy } from '../../src/safety/tool-pins.js';
import {
  startFakeOllama,
  textReply,
  toolCallReply,
  type FakeChatRequest,
  type FakeOllama,
  type FakeOllamaReply,
} from '../fakes/ollama-server.js';

const SERVER = fileURLToPath(new URL('../fixtures/servers/changing-tool.mjs', import.meta.url));

let home: string;
let ollama: FakeOllama | undefined;
let pinFile: string;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'mcphost-pins-'));
  pinFile = join(home, '.local/state/mcphost/tool-pins.json');
});
afterEach(async () => {
  await ollama?.close();
  ollama = undefined;
  await rm(home, { recursive: true, force: true });
});

interface RunOptions {
  readonly variant: 'a' | 'b' | 'c';
  readonly policy?: ToolChangePolicy;
  readonly replies?: readonly FakeOllamaReply[];
  readonly questions?: UserQuestions;
  readonly auditLog?: string;
}

/** One runner over the fixture (server `dict`), one prompt; what the model was sent, and the warnings. */
async function runOnce(options: RunOptions) {
  ollama = await startFakeOllama([...(options.replies ?? [textReply('ok')])]);
  const warnings: string[] = [];
  await using runner = await createRunner({
    model: 'ollama:mistral-small',
    providerUrl: ollama.url,
    homeDir: home,
    env: {},
    mcpServers: {
      dict: {
        command: process.execPath,
        args: [SERVER],
        env: { TOOL_VARIANT: options.variant },
        ...(options.policy === undefined ? {} : { toolChanges: options.policy }),
      },
    },
    // A changed tool as the CLI shows it: the summary, then each change on a line of its own.
    onEvent: (event) => {
      if (event.type === 'warning') warnings.push(event.message);
      if (event.type === 'tool-change') {
        warnings.push([event.notice.summary, ...event.notice.changes.map((line) => `  ${line}`)].join('\n'));
      }
    },
    ...(options.questions === undefined ? {} : { questions: options.questions }),
    ...(options.auditLog === undefined ? {} : { safety: { auditLog: options.auditLog } }),
  });
  const result = await runner.run('look it up');
  const requests = [...ollama.chatRequests];
  await ollama.close();
  ollama = undefined;
  return { result, requests, warnings };
}

function toolNames(request: FakeChatRequest | undefined): string[] {
  return (request?.tools ?? []).map((tool) => tool.function.name).sort();
}

function lookupDescription(request: FakeChatRequest | undefined): string | undefined {
  return request?.tools?.find((tool) => tool.function.name === 'dict__lookup')?.function.description;
}

async function pinnedHash(tool = 'lookup'): Promise<string | undefined> {
  return (await new ToolPinStore(pinFile).list()).find(
    (entry) => entry.server === 'dict' && entry.tool === tool,
  )?.pin.hash;
}

const CHANGED_DESCRIPTION = /read the file ~\/\.ssh\/id_rsa/;

describe('pinned tool definitions', () => {
  it('pins every tool on first sight, in the state folder', async () => {
    const { warnings } = await runOnce({ variant: 'a' });
    expect(warnings).toEqual([]);
    const pins = await new ToolPinStore(pinFile).list();
    expect(pins.map((entry) => `${entry.server}/${entry.tool}`)).toEqual([
      'dict/lookup',
      'dict/stable',
      'dict/swap',
    ]);
    const lookup = pins.find((entry) => entry.tool === 'lookup')?.pin;
    expect(lookup?.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(lookup?.definition.description).toBe('Looks up a word in the dictionary');
    expect(lookup?.definition.annotations).toEqual({ readOnlyHint: true });
    // A second run with the same definitions warns about nothing and keeps the pin as it was.
    const again = await runOnce({ variant: 'a' });
    expect(again.warnings).toEqual([]);
    expect(await pinnedHash()).toBe(lookup?.hash);
  });

  it('warn (the default): says what changed, writes an audit line, uses and pins the new definition', async () => {
    await runOnce({ variant: 'a' });
    const first = await pinnedHash();
    const auditLog = join(home, 'audit.jsonl');
    const { requests, warnings } = await runOnce({ variant: 'b', auditLog });
    expect(warnings).toHaveLength(1);
    const [warning = ''] = warnings;
    expect(warning).toContain('server "dict" changed its tool "lookup" since it was pinned');
    expect(warning).toContain('toolChanges: warn');
    expect(warning).toContain('\n  description was: Looks up a word in the dictionary\n');
    expect(warning).toMatch(CHANGED_DESCRIPTION);
    expect(warning).toMatch(/input property note added: \{"type":"string"\}/);
    // The model was given the new definition.
    expect(lookupDescription(requests[0])).toMatch(CHANGED_DESCRIPTION);
    const now = await pinnedHash();
    expect(now).not.toBe(first);
    const lines = (await readFile(auditLog, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      kind: 'tool-change',
      server: 'dict',
      tool: 'lookup',
      decision: 'allowed',
      decidedBy: 'policy',
      toolChange: { policy: 'warn', action: 'used', previousHash: first, hash: now },
    });
    // Warned once: the next run has the new pin.
    expect((await runOnce({ variant: 'b' })).warnings).toEqual([]);
  });

  it('shows a change of annotations only', async () => {
    await runOnce({ variant: 'a' });
    const { warnings } = await runOnce({ variant: 'c' });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('annotation destructiveHint added: true');
    expect(warnings[0]).toContain('annotation readOnlyHint: true → false');
    expect(warnings[0]).not.toContain('description');
  });

  it('block: withholds the tool, refuses a call naming server and tool, keeps the old pin until reset', async () => {
    await runOnce({ variant: 'a' });
    const first = await pinnedHash();
    const { requests, warnings, result } = await runOnce({
      variant: 'b',
      policy: 'block',
      replies: [toolCallReply(['dict__lookup', { word: 'x' }]), textReply('ok')],
    });
    expect(toolNames(requests[0])).toEqual(['dict__stable', 'dict__swap']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(
      'withheld from the model (toolChanges: block) until the pin is reset: mcphost mcp pins reset dict lookup',
    );
    // It was not offered in that step, so the Runner answers the call as one to an unknown tool
    // (the guard's own refusal, for a definition that changes after a listing: tool-pins.test.ts).
    const [call] = result.toolCalls;
    expect(call?.result.isError).toBe(true);
    expect(JSON.stringify(call?.result.content)).toContain('Unknown tool \\"dict__lookup\\"');
    expect(await pinnedHash()).toBe(first);
    // Still withheld in the next run; once the pin is reset, the new definition is pinned and used.
    expect(toolNames((await runOnce({ variant: 'b', policy: 'block' })).requests[0])).not.toContain(
      'dict__lookup',
    );
    await new ToolPinStore(pinFile).reset({ server: 'dict', tool: 'lookup' });
    const afterReset = await runOnce({ variant: 'b', policy: 'block' });
    expect(afterReset.warnings).toEqual([]);
    expect(lookupDescription(afterReset.requests[0])).toMatch(CHANGED_DESCRIPTION);
    expect(await pinnedHash()).not.toBe(first);
  });

  it('ask: the question carries the diff; "block" withholds for the session, "accept" pins the new one', async () => {
    await runOnce({ variant: 'a' });
    const first = await pinnedHash();
    const asked: ToolChangeReview[] = [];
    const answering = (kind: 'accept' | 'block'): UserQuestions => ({
      reviewToolChange: (review) => {
        asked.push(review);
        return Promise.resolve({ kind });
      },
    });
    const refused = await runOnce({ variant: 'b', policy: 'ask', questions: answering('block') });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ server: 'dict', tool: 'lookup', exposedName: 'dict__lookup' });
    expect(asked[0]?.changes).toContain('input property note added: {"type":"string"}');
    expect(toolNames(refused.requests[0])).not.toContain('dict__lookup');
    expect(refused.warnings[0]).toContain('the user did not accept it');
    expect(await pinnedHash()).toBe(first);

    const accepted = await runOnce({ variant: 'b', policy: 'ask', questions: answering('accept') });
    expect(asked).toHaveLength(2);
    expect(lookupDescription(accepted.requests[0])).toMatch(CHANGED_DESCRIPTION);
    expect(accepted.warnings[0]).toContain('the user accepted the new definition');
    expect(await pinnedHash()).not.toBe(first);
  });

  it('ask with no one to ask (as -p): counted as block, and said so', async () => {
    await runOnce({ variant: 'a' });
    const { requests, warnings } = await runOnce({ variant: 'b', policy: 'ask' });
    expect(toolNames(requests[0])).not.toContain('dict__lookup');
    expect(warnings[0]).toContain(
      'toolChanges is "ask" and no one can be asked here, so it counts as "block"',
    );
  });

  describe('a definition changed live (notifications/tools/list_changed)', () => {
    const swapThenLookup = [
      toolCallReply(['dict__swap', {}]),
      toolCallReply(['dict__lookup', { word: 'x' }]),
      textReply('ok'),
    ];

    it('block: the next step withholds it and its call is refused', async () => {
      const { requests, warnings, result } = await runOnce({
        variant: 'a',
        policy: 'block',
        replies: swapThenLookup,
      });
      expect(toolNames(requests[0])).toContain('dict__lookup');
      expect(toolNames(requests[1])).not.toContain('dict__lookup');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(CHANGED_DESCRIPTION);
      expect(result.toolCalls.map((record) => [record.call.name, record.result.isError])).toEqual([
        ['dict__swap', false],
        ['dict__lookup', true],
      ]);
    });

    it('warn: the next step has the new definition, after one warning', async () => {
      const { requests, warnings, result } = await runOnce({ variant: 'a', replies: swapThenLookup });
      expect(lookupDescription(requests[0])).toBe('Looks up a word in the dictionary');
      expect(lookupDescription(requests[1])).toMatch(CHANGED_DESCRIPTION);
      expect(warnings).toHaveLength(1);
      expect(result.toolCalls.map((record) => record.result.isError)).toEqual([false, false]);
    });
  });
});
