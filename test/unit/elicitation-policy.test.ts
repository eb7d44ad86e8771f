/** How an elicitation is answered when nobody can be asked: the `elicitation.policy` option. */
import { describe, expect, it } from 'vitest';
import type { ElicitRequestParams } from '@modelcontextprotocol/client';
import {
  createElicitationHandler,
  type ElicitationOutcome,
  type ElicitationPolicy,
} from '../../src/mcp/elicitation.js';
import { QuestionQueue } from '../../src/core/questions.js';

const withDefaults: ElicitRequestParams = {
  message: 'Accept with defaults',
  requestedSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', default: 'John Doe' },
      age: { type: 'integer', default: 30 },
      status: { type: 'string', enum: ['active', 'inactive'], default: 'active' },
      verified: { type: 'boolean', default: true },
      note: { type: 'string' },
    },
    required: ['name'],
  },
};

const requiredWithoutDefault: ElicitRequestParams = {
  message: 'Who are you?',
  requestedSchema: {
    type: 'object',
    properties: { email: { type: 'string', format: 'email' }, age: { type: 'integer', default: 1 } },
    required: ['email'],
  },
};

async function answer(policy: ElicitationPolicy | undefined, params: ElicitRequestParams) {
  const outcomes: ElicitationOutcome[] = [];
  const elicit = createElicitationHandler({
    questions: undefined,
    queue: new QuestionQueue(),
    policy,
    onOutcome: (outcome) => outcomes.push(outcome),
  });
  const result = await elicit('srv', params, new AbortController().signal);
  return { result, outcome: outcomes[0] };
}

describe('elicitation policy', () => {
  it('declines by default, saying why', async () => {
    const { result, outcome } = await answer(undefined, withDefaults);
    expect(result).toEqual({ action: 'decline' });
    expect(outcome?.reason).toBe('nobody can answer here; elicitation policy "decline"');
  });

  it('accepts with the schema defaults, leaving out fields that have none', async () => {
    const { result, outcome } = await answer('accept-defaults', withDefaults);
    expect(result).toEqual({
      action: 'accept',
      content: { name: 'John Doe', age: 30, status: 'active', verified: true },
    });
    expect(outcome).toMatchObject({ server: 'srv', mode: 'form', action: 'accept' });
  });

  it('declines with accept-defaults when a required field has no default', async () => {
    const { result, outcome } = await answer('accept-defaults', requiredWithoutDefault);
    expect(result).toEqual({ action: 'decline' });
    expect(outcome?.reason).toMatch(/required field has no default/);
  });

  it('declines a URL elicitation whatever the policy', async () => {
    const { result } = await answer('accept-defaults', {
      mode: 'url',
      message: 'Sign in',
      url: 'https://example.com/sign-in',
      elicitationId: 'e1',
    });
    expect(result).toEqual({ action: 'decline' });
  });
});
