/**
 * The chat's question before an MCP App's link opens (`ui/open-link`): the app and the address
 * shown, cleaned of control characters; only "y" opens (through the injected opener); anything
 * else, or an ended input, keeps it closed.
 */
import { describe, expect, it } from 'vitest';
import type { HostedApp } from '../../src/apps/hosted-app.js';
import type { PromptIO } from '../../src/cli/prompts/ask-answer.js';
import { createOpenLinkPrompt } from '../../src/cli/prompts/open-link-prompt.js';

function terminal(answer: string | undefined) {
  let screen = '';
  const io: PromptIO = {
    ask: (question) => {
      screen += question;
      return answer === undefined ? Promise.reject(new Error('input closed')) : Promise.resolve(answer);
    },
    write: (text) => {
      screen += text;
    },
  };
  return { io, screen: () => screen };
}

const app = { id: 'app-1-abc', call: { name: 'dash__show_dashboard' } } as unknown as HostedApp;
const url = 'https://example.com/tickets\u001b[2J';

describe('createOpenLinkPrompt', () => {
  it('opens the link on "y", naming the app and the address', async () => {
    const shown = terminal('y');
    const opened: string[] = [];
    const ask = createOpenLinkPrompt(shown.io, {}, (link) => {
      opened.push(link);
      return Promise.resolve(true);
    });
    expect(await ask({ app, url })).toBe(true);
    expect(opened).toEqual([url]);
    expect(shown.screen()).toContain('The app of dash__show_dashboard (app-1-abc) asks to open a link:');
    expect(shown.screen()).toContain('https://example.com/tickets');
    expect(shown.screen()).not.toContain('\u001b');
  });

  it.each([['n'], ['maybe'], [undefined]])('keeps it closed on %s', async (answer) => {
    const opened: string[] = [];
    const ask = createOpenLinkPrompt(terminal(answer).io, {}, (link) => {
      opened.push(link);
      return Promise.resolve(true);
    });
    expect(await ask({ app, url })).toBe(false);
    expect(opened).toEqual([]);
  });
});
