/**
 * Calls written as text (src/core/tool-calling/text-calls.ts): each recognised form, from the
 * fixtures of test/fixtures/text-tool-calls.json; what stays text; and properties over generated
 * calls (any call in any form reads back as itself; prose around it never does).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTextCalls } from '../../src/core/tool-calling/text-calls.js';
import { REPOSITORY } from '../support/cli.js';

const fixtures = JSON.parse(readFileSync(join(REPOSITORY, 'test/fixtures/text-tool-calls.json'), 'utf8')) as {
  forms: Array<{ form: string; text: string }>;
  notCalls: Array<{ why: string; text: string }>;
};
const OFFERED = new Set(['memory__create_entities', 'memory__read_graph']);

describe('calls written as text', () => {
  for (const { form, text } of fixtures.forms) {
    it(`reads the ${form} form`, () => {
      const calls = parseTextCalls(text, OFFERED);
      expect(calls).toHaveLength(1);
      expect(calls?.[0]?.name).toBe('memory__create_entities');
      expect(JSON.stringify(calls?.[0]?.input)).toContain(`form-${form}`);
    });
  }

  for (const { why, text } of fixtures.notCalls) {
    it(`leaves ${why} as text`, () => {
      expect(parseTextCalls(text, OFFERED)).toBeUndefined();
    });
  }

  it('reads several calls: tags one after another, a Mistral list, repeated [TOOL_CALLS]', () => {
    const call = (name: string) => `{"name": "${name}", "arguments": {}}`;
    expect(
      parseTextCalls(
        `<tool_call>\n${call('memory__read_graph')}\n</tool_call>\n<tool_call>${call('memory__create_entities')}</tool_call>`,
        OFFERED,
      )?.map((read) => read.name),
    ).toEqual(['memory__read_graph', 'memory__create_entities']);
    expect(
      parseTextCalls(
        `[TOOL_CALLS]memory__read_graph[ARGS]{}[TOOL_CALLS]memory__create_entities[ARGS]{"entities":[]}`,
        OFFERED,
      )?.map((read) => read.name),
    ).toEqual(['memory__read_graph', 'memory__create_entities']);
    expect(
      parseTextCalls(`[${call('memory__read_graph')}, ${call('memory__read_graph')}]`, OFFERED),
    ).toHaveLength(2);
  });

  it('takes arguments sent as a JSON string, and refuses arguments that are not an object', () => {
    expect(parseTextCalls('{"name": "memory__read_graph", "arguments": "{}"}', OFFERED)).toEqual([
      { name: 'memory__read_graph', input: {} },
    ]);
    expect(parseTextCalls('{"name": "memory__read_graph", "arguments": [1]}', OFFERED)).toBeUndefined();
  });

  it('leaves a call among offered ones of a tool not offered as text (all or nothing)', () => {
    const text =
      '<tool_call>{"name": "memory__read_graph", "arguments": {}}</tool_call><tool_call>{"name": "x__y", "arguments": {}}</tool_call>';
    expect(parseTextCalls(text, OFFERED)).toBeUndefined();
  });

  const names = fc.constantFrom(...OFFERED);
  const argumentsObject = fc.dictionary(
    fc.string({ minLength: 1, maxLength: 8 }),
    fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)),
    { maxKeys: 4 },
  );
  const forms: Array<(name: string, input: string) => string> = [
    (name, input) => `{"name": ${JSON.stringify(name)}, "arguments": ${input}}`,
    (name, input) => `\`\`\`json\n{"name": ${JSON.stringify(name)}, "parameters": ${input}}\n\`\`\``,
    (name, input) => `<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": ${input}}\n</tool_call>`,
    (name, input) => `[TOOL_CALLS] [{"name": ${JSON.stringify(name)}, "arguments": ${input}}]`,
    (name, input) => `[TOOL_CALLS]${name}[ARGS]${input}`,
  ];

  it('reads any call of an offered tool in any form back as itself', () => {
    fc.assert(
      fc.property(
        names,
        argumentsObject,
        fc.integer({ min: 0, max: forms.length - 1 }),
        (name, input, form) => {
          const text = (forms[form] as (typeof forms)[number])(name, JSON.stringify(input));
          expect(parseTextCalls(`  ${text}\n`, OFFERED)).toEqual([{ name, input }]);
        },
      ),
    );
  });

  it('never reads a call out of prose around it', () => {
    const prose = fc.string({ minLength: 1 }).filter((text) => /[A-Za-z]/.test(text));
    fc.assert(
      fc.property(
        names,
        argumentsObject,
        fc.integer({ min: 0, max: forms.length - 1 }),
        prose,
        (name, input, form, words) => {
          const text = (forms[form] as (typeof forms)[number])(name, JSON.stringify(input));
          expect(parseTextCalls(`${words} ${text}`, OFFERED)).toBeUndefined();
          expect(parseTextCalls(`${text}\n${words}`, OFFERED)).toBeUndefined();
        },
      ),
    );
  });
});
