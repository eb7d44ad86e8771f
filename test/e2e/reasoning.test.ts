/**
 * A thinking model's reasoning end to end (issue 36): the built CLI against the fake Ollama, whose
 * model streams `message.thinking` lines before its answer as Ollama streams qwen3's. The editor
 * (`mcphost acp`, driven by the ACP SDK's client side) gets it as `agent_thought_chunk`s apart from
 * the answer's `agent_message_chunk`s; `-p` prints the answer only; `stream-json` has
 * `reasoning-delta` events and a result whose text has none of it.
 */
import { describe, expect, it } from 'vitest';
import type { FakeOllamaReply } from '../fakes/ollama-server.js';
import { EditorsOfTest, answerText, updatesOf } from '../support/acp-editor.js';
import { cliFixture } from '../support/cli-fixture.js';
import { runCli } from '../support/cli.js';

const THOUGHTS = ['The user says hi. ', 'A short greeting back will do.'];
const ANSWER = 'Hello there!';
const thinkingReply: FakeOllamaReply = { type: 'answer', thinking: THOUGHTS, text: ['Hello ', 'there!'] };

const editors = new EditorsOfTest();
const fixture = cliFixture({}, () => editors.closeAndCheck());

describe('reasoning of a thinking model', () => {
  it('reaches the editor as agent_thought_chunk, apart from the answer', async () => {
    await fixture.startModel([thinkingReply], { models: ['qwen3:4b'] });
    const cwd = await fixture.temporaryFolder('acp-reasoning-');
    const editor = await editors.start({
      home: fixture.home.path,
      cwd,
      args: ['-m', 'ollama:qwen3:4b', '--provider-url', fixture.model.url],
    });
    const session = await editor.agent.request('session/new', { cwd, mcpServers: [] });
    const answer = await editor.agent.request('session/prompt', {
      sessionId: session.sessionId,
      prompt: [{ type: 'text', text: 'hi' }],
    });
    expect(answer.stopReason).toBe('end_turn');
    const thoughts = updatesOf(editor.updates, 'agent_thought_chunk').map((update) =>
      update.content.type === 'text' ? update.content.text : '',
    );
    expect(thoughts.join('')).toBe(THOUGHTS.join(''));
    expect(answerText(editor.updates)).toBe(ANSWER);
    // The thought came before the answer, as the model wrote it.
    const kinds = editor.updates.map((notification) => notification.update.sessionUpdate);
    expect(kinds.indexOf('agent_thought_chunk')).toBeLessThan(kinds.indexOf('agent_message_chunk'));
  });

  it('-p prints the answer only, on stdout and stderr alike', async () => {
    await fixture.startModel([thinkingReply], { models: ['qwen3:4b'] });
    const run = await runCli(['-m', 'ollama:qwen3:4b', '-p', 'hi'], fixture.home.path, {
      env: { OLLAMA_HOST: fixture.model.url },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${ANSWER}\n`);
    expect(run.stderr).not.toContain('greeting');
  });

  it('stream-json has reasoning-delta events, and the result text none of it', async () => {
    await fixture.startModel([thinkingReply], { models: ['qwen3:4b'] });
    const run = await runCli(
      ['-m', 'ollama:qwen3:4b', '-p', 'hi', '--output-format', 'stream-json'],
      fixture.home.path,
      { env: { OLLAMA_HOST: fixture.model.url } },
    );
    expect(run.code).toBe(0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; step?: number; text?: string });
    const reasoning = events.filter((event) => event.type === 'reasoning-delta');
    expect(reasoning.map((event) => event.text).join('')).toBe(THOUGHTS.join(''));
    expect(reasoning.every((event) => event.step === 1)).toBe(true);
    const text = events.filter((event) => event.type === 'text-delta').map((event) => event.text);
    expect(text.join('')).toBe(ANSWER);
    const result = events.find((event) => event.type === 'result');
    expect(result?.text).toBe(ANSWER);
  });
});
