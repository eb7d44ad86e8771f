/**
 * createRunner's one `onEvent`: each of the host's notices reaches it as one HostEvent carrying
 * what the notice carried, and without a listener the parts get no callbacks at all (as before,
 * when each callback was an option of its own).
 */
import { describe, expect, it } from 'vitest';
import { hostNotices, type HostEvent } from '../../src/setup/host-event.js';

describe('hostNotices', () => {
  it('passes each notice on as one event of its type', () => {
    const events: HostEvent[] = [];
    const notices = hostNotices((event) => events.push(event));
    notices.serverLog?.({ server: 'files', level: 'warn', message: 'crashed' });
    notices.serverLogMessage?.('files', { level: 'info', data: 'hello' });
    notices.warning?.('no such setting');
    notices.offeringsChange?.({ type: 'list-changed', server: 'files', list: 'prompts' });
    notices.samplingOutcome?.({ server: 'files', action: 'declined', reason: 'off' });
    notices.toolProgress?.({ server: 'files', tool: 'copy', toolCallId: 'c1', progress: 1 });
    expect(events).toEqual([
      { type: 'server-log', entry: { server: 'files', level: 'warn', message: 'crashed' } },
      { type: 'server-log-message', server: 'files', message: { level: 'info', data: 'hello' } },
      { type: 'warning', message: 'no such setting' },
      { type: 'offerings-change', change: { type: 'list-changed', server: 'files', list: 'prompts' } },
      { type: 'sampling-outcome', outcome: { server: 'files', action: 'declined', reason: 'off' } },
      { type: 'tool-progress', progress: { server: 'files', tool: 'copy', toolCallId: 'c1', progress: 1 } },
    ]);
  });

  it('gives the parts no callbacks without a listener', () => {
    expect(hostNotices(undefined)).toEqual({});
  });
});
