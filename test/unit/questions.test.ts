import { describe, expect, it } from 'vitest';
import { askUser, QuestionQueue, SAFE_ANSWERS, type UserQuestions } from '../../src/core/questions.js';

const signal = new AbortController().signal;
const elicitation = { mode: 'form', server: 's', message: 'name?', requestedSchema: {}, signal } as const;

describe('askUser', () => {
  it('gives the safe answer when no one can be asked', async () => {
    const queue = new QuestionQueue();
    expect(await askUser(undefined, queue, 'elicit', elicitation)).toEqual({ action: 'decline' });
    expect(await askUser({}, queue, 'signIn', { server: 's', url: 'https://x', signal })).toEqual(
      SAFE_ANSWERS.signIn,
    );
  });

  it("passes the person's answer through", async () => {
    const questions: UserQuestions = {
      elicit: async (request) => ({ action: 'accept', content: { asked: request.message } }),
    };
    expect(await askUser(questions, new QuestionQueue(), 'elicit', elicitation)).toEqual({
      action: 'accept',
      content: { asked: 'name?' },
    });
  });

  it('takes a rejection as the safe answer', async () => {
    const questions: UserQuestions = {
      reviewSampling: () => Promise.reject(new Error('terminal closed')),
    };
    const review = { server: 's', stage: 'request', request: {}, signal } as const;
    expect(await askUser(questions, new QuestionQueue(), 'reviewSampling', review)).toEqual({ kind: 'deny' });
  });

  it('stops waiting when the run is cancelled, even if the prompt ignores the signal', async () => {
    const controller = new AbortController();
    const questions: UserQuestions = { reviewFlaggedContent: () => new Promise(() => undefined) };
    const pending = askUser(questions, new QuestionQueue(), 'reviewFlaggedContent', {
      source: 'tool',
      findings: ['role marker'],
      preview: '',
      signal: controller.signal,
    });
    controller.abort();
    expect(await pending).toEqual({ kind: 'withhold' });
  });

  it('asks one question at a time', async () => {
    const order: string[] = [];
    let release: () => void = () => undefined;
    const questions: UserQuestions = {
      elicit: async (request) => {
        order.push(`start ${request.message}`);
        if (request.message === 'first') await new Promise<void>((resolve) => (release = resolve));
        order.push(`end ${request.message}`);
        return { action: 'cancel' };
      },
    };
    const queue = new QuestionQueue();
    const first = askUser(questions, queue, 'elicit', { ...elicitation, message: 'first' });
    const second = askUser(questions, queue, 'elicit', { ...elicitation, message: 'second' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(order).toEqual(['start first']);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['start first', 'end first', 'start second', 'end second']);
  });
});
