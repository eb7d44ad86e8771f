/** Reading an elicitation's requested schema as a form, checking answers, and judging URLs. */
import { describe, expect, it } from 'vitest';
import { checkAnswer, defaultAnswer, readForm } from '../../src/mcp/elicitation-schema.js';
import { suspiciousUrl } from '../../src/mcp/elicitation.js';

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 2 },
    age: { type: 'integer', minimum: 0, default: 30 },
    subscribe: { type: 'boolean', default: false },
    color: { type: 'string', enum: ['red', 'green'], enumNames: ['Red', 'Green'], default: 'red' },
    hero: { type: 'string', oneOf: [{ const: 'h1', title: 'Superman' }] },
    tools: { type: 'array', items: { anyOf: [{ const: 't1', title: 'Hammer' }] }, maxItems: 1 },
    email: { type: 'string', format: 'email' },
  },
  required: ['name', 'email'],
};

describe('readForm', () => {
  it('reads every kind of field of the spec with its constraints, choices and default', () => {
    const form = readForm(schema);
    expect(form).toEqual({
      ok: true,
      fields: [
        { name: 'name', title: 'Name', required: true, kind: 'string', minLength: 2 },
        { name: 'age', required: false, kind: 'number', integer: true, minimum: 0, default: 30 },
        { name: 'subscribe', required: false, kind: 'boolean', default: false },
        {
          name: 'color',
          required: false,
          kind: 'enum',
          options: [
            { value: 'red', label: 'Red' },
            { value: 'green', label: 'Green' },
          ],
          default: 'red',
        },
        { name: 'hero', required: false, kind: 'enum', options: [{ value: 'h1', label: 'Superman' }] },
        {
          name: 'tools',
          required: false,
          kind: 'multi-enum',
          options: [{ value: 't1', label: 'Hammer' }],
          maxItems: 1,
        },
        { name: 'email', required: true, kind: 'string', format: 'email' },
      ],
    });
  });

  it('says why a schema cannot be a form', () => {
    expect(readForm({ type: 'array' })).toEqual({
      ok: false,
      reason: 'the requested schema is not an object with properties',
    });
    expect(readForm({ type: 'object', properties: { a: { type: 'object' } } })).toEqual({
      ok: false,
      reason: 'property "a" has type "object", which a form cannot ask for',
    });
    expect(
      readForm({ type: 'object', properties: { a: { type: 'array', items: { type: 'string' } } } }),
    ).toEqual({
      ok: false,
      reason: 'property "a" is an array of something other than choices',
    });
    expect(readForm({ type: 'object', properties: { a: { type: 'string', enum: [1, 2] } } })).toEqual({
      ok: false,
      reason: 'property "a" has choices that are not strings',
    });
  });

  it('builds the answer of defaults only when every required field has one', () => {
    const form = readForm(schema);
    if (!form.ok) throw new Error(form.reason);
    expect(defaultAnswer(form.fields)).toBeUndefined();
    const optional = readForm({ ...schema, required: [] });
    if (!optional.ok) throw new Error(optional.reason);
    expect(defaultAnswer(optional.fields)).toEqual({ age: 30, subscribe: false, color: 'red' });
  });
});

describe('checkAnswer', () => {
  it('accepts a fitting answer and names what is wrong with another', () => {
    expect(checkAnswer(schema, { name: 'Ada', email: 'ada@example.com', tools: ['t1'] })).toBeUndefined();
    expect(checkAnswer(schema, { name: 'Ada', email: 'nope' })).toMatch(/email.*must match format "email"/);
    expect(checkAnswer(schema, { email: 'ada@example.com' })).toMatch(/must have required property 'name'/);
    expect(checkAnswer(schema, { name: 'Ada', email: 'a@b.co', color: 'blue' })).toMatch(/color/);
  });
});

describe('suspiciousUrl', () => {
  it('allows https and loopback http, and refuses the rest with a reason', () => {
    expect(suspiciousUrl('https://example.com/sign-in')).toBeUndefined();
    expect(suspiciousUrl('http://127.0.0.1:8080/callback')).toBeUndefined();
    expect(suspiciousUrl('http://example.com/')).toBe('its scheme "http:" is not https');
    expect(suspiciousUrl('javascript:alert(1)')).toBe('its scheme "javascript:" is not https');
    expect(suspiciousUrl('https://user:pw@example.com/')).toBe('it carries a user name or password');
    expect(suspiciousUrl('https://xn--pple-43d.com/')).toBe(
      'its host "xn--pple-43d.com" is an internationalized name that may imitate another',
    );
    expect(suspiciousUrl('https://аpple.com/')).toMatch(/internationalized name/);
    expect(suspiciousUrl('not a url')).toBe('it is not a valid URL');
  });
});
