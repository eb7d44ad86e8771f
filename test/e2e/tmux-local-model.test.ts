/**
 * `/model local:FILE` in a real terminal (tmux): the chat switches from a (fake) Ollama to the
 * embedded model, answers with it (in the model's own context window), and switches back. The tiny
 * generated model leans to `q`, and a stop sequence of `qq` ends its answers at once.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textReply } from '../fakes/ollama-server.js';
import { PROMPT, useChatTerminal } from '../support/chat-terminal.js';
import { tmuxAvailable } from '../support/tmux.js';
import { TINY_GGUF_SHAPE, writeTinyGguf } from '../fixtures/tiny-gguf.js';

const fixture = useChatTerminal();

describe.skipIf(!tmuxAvailable())('the chat and the embedded model', () => {
  it('switches to local:FILE with /model, answers with it, and switches back', async () => {
    await fixture.home.writeConfig({ mcpServers: {} });
    await fixture.startModel([textReply('From Ollama.'), textReply('Ollama again.')]);
    const model = await writeTinyGguf(join(fixture.home.path, 'tiny.gguf'), {
      ...TINY_GGUF_SHAPE,
      favouredByte: 'q',
    });
    const chat = await fixture.startChat({
      args: ['--stop-sequences', 'qq', '--max-tokens', '20'],
      env: { MCPHOST_LOCAL_THREADS: '1' },
    });
    chat.type('hello');
    chat.keys('Enter');
    await chat.waitFor('From Ollama.');
    chat.type(`/model local:${model}`);
    chat.keys('Enter');
    await chat.waitFor(`local:${model} ›`);
    chat.type('and now?');
    chat.keys('Enter');
    // The model writes `qq`, the stop sequence, at once: an empty answer of two tokens, in the
    // context window the model runs with (the generated file's 2,048 tokens), not Ollama's 4.1k.
    const screen = await chat.waitFor(/and now\?\n\d+ tokens in · 2 out · \d+% of 2\.0k context/);
    expect(screen).not.toMatch(/error/i);
    chat.type('/model ollama:mistral-small');
    chat.keys('Enter');
    await chat.waitFor(PROMPT);
    chat.type('back?');
    chat.keys('Enter');
    await chat.waitFor('Ollama again.');
    // The fake saw the whole conversation, the embedded model's turn included.
    expect(fixture.model.chatRequests).toHaveLength(2);
  });
});
