/**
 * The chat's offer to pull an Ollama model that is not there, in a real terminal (tmux, the BUILT
 * CLI, the fake Ollama behind the real `ollama` client): the one-line error, the question, the
 * progress bar of the streamed pull, and the turn answered once the model is there.
 */
import { describe, expect, it } from 'vitest';
import { textReply } from '../fakes/ollama-server.js';
import { PROMPT, useChatTerminal } from '../support/chat-terminal.js';
import { tmuxAvailable } from '../support/tmux.js';

const hasTmux = tmuxAvailable();
if (!hasTmux) console.warn('tmux is not installed: skipping the terminal tests (apt-get install tmux)');

const fixture = useChatTerminal({ config: { mcpServers: {} } });

describe.skipIf(!hasTmux)('a model that is not pulled, in the chat', () => {
  it('offers to pull it, shows the progress, and answers the turn once it is there', async () => {
    // The chat's model (mistral-small) is in the library but not installed.
    const ollama = await fixture.startModel([textReply('Pulled and answering.')], {
      models: ['llama3.2'],
      pullDelayMs: 120,
    });
    const chat = await fixture.startChat();
    chat.type('hello');
    chat.keys('Enter');
    const asked = await chat.waitFor(/Pull mistral-small from Ollama at .* now\? \[y\/N\]/);
    expect(asked).toContain('does not have the model "mistral-small": run `ollama pull mistral-small`');
    chat.type('y');
    chat.keys('Enter');
    // The bar, mid-way: a percent, the bar, and the sizes.
    const midway = await chat.waitFor(/pulling [0-9a-f]{12} +\d+% \[#*-+\] [\d.]+ [KMG]?B\/2\.0 GB/);
    expect(midway).toContain('pulling manifest');
    const done = await chat.waitFor(/Pulled and answering\./);
    expect(done).toContain('pulled mistral-small');
    // The bar is redrawn in place: one line per layer, not one per progress line.
    expect(done.match(/pulling a{12}/g)).toHaveLength(1);
    expect(done).toMatch(/pulling a{12} 100% \[#{24}\] 2\.0 GB\/2\.0 GB/);
    // One chat, once the model was there, with the window asked of the pulled model.
    expect(ollama.chatRequests).toHaveLength(1);
    expect(ollama.chatRequests[0]?.options?.num_ctx).toBe(32_768);
    expect(ollama.requests.filter((request) => request.path === '/api/pull')).toHaveLength(1);
    await chat.waitFor((text) => text.trimEnd().endsWith(PROMPT));
  });

  it('leaves the model alone when the answer is no', async () => {
    const ollama = await fixture.startModel([], { models: ['llama3.2'] });
    const chat = await fixture.startChat();
    chat.type('hello');
    chat.keys('Enter');
    await chat.waitFor(/Pull mistral-small from Ollama at .* now\? \[y\/N\]/);
    chat.type('n');
    chat.keys('Enter');
    await chat.waitFor((text) => text.trimEnd().endsWith('›'));
    expect(ollama.requests.filter((request) => request.path === '/api/pull')).toEqual([]);
  });
});
