/**
 * The compaction line in the chat, in a real terminal (tmux, the BUILT CLI, the fake Ollama): a
 * small window (`--context-window`) fills after one long answer, and the next prompt is preceded by
 * a compaction the chat reports in one dimmed line; then the model answers from the summary, and
 * `/usage` shows the window's source. Skipped, saying why, only when tmux is not installed.
 */
import { describe, expect, it } from 'vitest';
import { textReply } from '../fakes/ollama-server.js';
import { useChatTerminal } from '../support/chat-terminal.js';
import { tmuxAvailable } from '../support/tmux.js';
import { SUMMARY_TEMPLATE } from '../../src/context/compaction.js';

const hasTmux = tmuxAvailable();
if (!hasTmux) console.warn('tmux is not installed: skipping the terminal tests (apt-get install tmux)');

const fixture = useChatTerminal({ config: { mcpServers: {} } });

/** Waits for the end of a turn: the token line, then the prompt back. */
const turnOver = (screen: string, count: number): boolean =>
  (screen.match(/tokens in/g) ?? []).length >= count && screen.trimEnd().endsWith('›');

describe.skipIf(!hasTmux)('compaction in the chat', () => {
  it('prints the compaction line before the answer that needed it', async () => {
    const isSummaryRequest = (request: { messages: unknown }) =>
      JSON.stringify(request.messages).includes(SUMMARY_TEMPLATE.slice(0, 40));
    let summaryRequests = 0;
    await fixture.startModel(
      // About 1,200 tokens (three characters a token): with the reserve, the next request passes 80%.
      [textReply(`The long answer. ${'lorem ipsum dolor '.repeat(200)}`)],
      {
        // The older part is larger than one summary request may be in a 2,000-token window: it is
        // summarized in parts, each answered here; then the model answers the prompt.
        fallback: (request) => {
          if (!isSummaryRequest(request))
            return textReply(`Answer from ${request.messages.length} messages.`);
          summaryRequests += 1;
          return textReply(`## Goal\nTalk about lorem ipsum (part ${summaryRequests}).\n## Decisions\nnone`);
        },
      },
    );
    const chat = await fixture.startChat({ args: ['--context-window', '2000'] });
    chat.type('tell me a lot');
    chat.keys('Enter');
    await chat.waitFor((screen) => turnOver(screen, 1));
    chat.type('and now?');
    chat.keys('Enter');
    const screen = await chat.waitFor((text) => turnOver(text, 2) && text.includes('Answer from'));
    expect(screen).toMatch(
      /⟲ compacted the conversation \(the context was nearly full\): 2 older messages summarized, about 1\.2k → \d+ tokens/,
    );
    // The line comes before the answer, and the model answered from the summary, its
    // acknowledgement and the new prompt.
    expect(screen.indexOf('⟲ compacted')).toBeLessThan(screen.indexOf('Answer from'));
    // The summary, the acknowledgement and the new prompt, after the system message (the
    // untrusted-content clause makes one).
    expect(screen).toContain('Answer from 4 messages.');
    expect(summaryRequests).toBeGreaterThan(1);
    chat.type('/usage');
    chat.keys('Enter');
    await chat.waitFor(/Context: [\d,]+ tokens, \d+% of 2\.0k context \(window from override\)/);
  });
});
