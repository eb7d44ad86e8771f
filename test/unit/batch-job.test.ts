import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/util/canonical-json.js';
import {
  fillTemplate,
  jobKey,
  parseJobLine,
  parseJobLines,
  parseVarArguments,
  type JobLine,
} from '../../src/batch/job.js';
import { readResultKeys } from '../../src/batch/result.js';

function jobOf(entry: JobLine) {
  if (entry.kind !== 'job') throw new Error(`expected a job, got ${JSON.stringify(entry)}`);
  return entry.job;
}

describe('a jobs file line', () => {
  it('is a plain-text prompt when it is not a JSON object', () => {
    const job = jobOf(parseJobLine('  Summarise README.md  ', 3));
    expect(job.job).toEqual({ prompt: 'Summarise README.md' });
    expect(job.line).toBe(3);
    expect(job.key).toMatch(/^line:3:[0-9a-f]{12}$/);
  });

  it('is a job object with every field', () => {
    const text = JSON.stringify({
      id: 'a1',
      prompt: 'Hi {{name}}',
      model: 'ollama:qwen3',
      system: 'Be {{tone}}.',
      servers: ['memory'],
      outputSchema: { type: 'object' },
      vars: { name: 'Ada', tone: 'brief' },
    });
    expect(jobOf(parseJobLine(text, 1))).toEqual({
      line: 1,
      key: 'a1',
      job: {
        id: 'a1',
        prompt: 'Hi Ada',
        model: 'ollama:qwen3',
        system: 'Be brief.',
        servers: ['memory'],
        outputSchema: { type: 'object' },
        vars: { name: 'Ada', tone: 'brief' },
      },
    });
  });

  it('takes a numeric id as its text', () => {
    expect(jobOf(parseJobLine('{"id": 7, "prompt": "x"}', 1)).key).toBe('7');
  });

  it('is skipped when blank', () => {
    expect(parseJobLine('   ', 4)).toEqual({ kind: 'blank', line: 4 });
  });

  it('names its line number when it is malformed JSON', () => {
    const entry = parseJobLine('{"prompt": "x",', 12);
    expect(entry.kind).toBe('invalid');
    expect(entry.kind === 'invalid' && entry.message).toMatch(/^line 12: not valid JSON \(/);
  });

  it('names a misspelt field', () => {
    const entry = parseJobLine('{"promt": "x"}', 2);
    expect(entry).toMatchObject({ kind: 'invalid', line: 2 });
    expect(entry.kind === 'invalid' && entry.message).toMatch(/^line 2: unknown field "promt"/);
  });

  it('names a field of the wrong type', () => {
    const entry = parseJobLine('{"prompt": "x", "servers": "memory"}', 5);
    expect(entry.kind === 'invalid' && entry.message).toMatch(/^line 5: "servers": /);
  });

  it('says when there is no prompt', () => {
    const entry = parseJobLine('{"id": "a"}', 9);
    expect(entry.kind === 'invalid' && entry.message).toMatch(/^line 9: no "prompt"/);
  });

  it('says when the prompt is empty', () => {
    const entry = parseJobLine('{"prompt": "  "}', 9);
    expect(entry.kind === 'invalid' && entry.message).toBe('line 9: the prompt is empty');
  });
});

describe('prompt templates', () => {
  it('fill placeholders from --var, overridden by the line', () => {
    const job = jobOf(
      parseJobLine('{"prompt": "Translate {{ word }} to {{lang}}", "vars": {"lang": "French"}}', 1, {
        vars: { word: 'cat', lang: 'German' },
      }),
    );
    expect(job.job.prompt).toBe('Translate cat to French');
    expect(job.job.vars).toEqual({ word: 'cat', lang: 'French' });
  });

  it('fill the batch template for a line of only vars', () => {
    const job = jobOf(parseJobLine('{"vars": {"n": 3, "ok": true}}', 1, { template: 'n={{n}} ok={{ok}}' }));
    expect(job.job.prompt).toBe('n=3 ok=true');
  });

  it('name the missing variables and the line', () => {
    const entry = parseJobLine('Hello {{who}} and {{whom}}', 6, { vars: { who: 'x' } });
    expect(entry.kind === 'invalid' && entry.message).toBe(
      'line 6: no value for {{whom}} (give it in "vars" or with --var)',
    );
  });

  it('leave other braces alone', () => {
    expect(fillTemplate('{"a": {b}} {{x}}', { x: '1' })).toEqual({ ok: true, text: '{"a": {b}} 1' });
  });
});

describe('the job key', () => {
  it('is the id when there is one', () => {
    expect(jobKey({ id: 'k', prompt: 'x' }, 1)).toBe('k');
  });

  it('changes with the line, the prompt and the model, not with key order', () => {
    const base = jobKey({ prompt: 'x', outputSchema: { a: 1, b: 2 } }, 1);
    expect(jobKey({ prompt: 'x', outputSchema: { b: 2, a: 1 } }, 1)).toBe(base);
    expect(jobKey({ prompt: 'x', outputSchema: { a: 1, b: 2 } }, 2)).not.toBe(base);
    expect(jobKey({ prompt: 'y', outputSchema: { a: 1, b: 2 } }, 1)).not.toBe(base);
    expect(jobKey({ prompt: 'x', model: 'ollama:m', outputSchema: { a: 1, b: 2 } }, 1)).not.toBe(base);
  });

  it('changes with the agent; a line without one keeps the key earlier versions recorded', () => {
    const plain = jobOf(parseJobLine('{"prompt": "x"}', 1));
    const asAgent = jobOf(parseJobLine('{"prompt": "x", "agent": "reviewer"}', 1));
    expect(asAgent.job.agent).toBe('reviewer');
    expect(asAgent.key).not.toBe(plain.key);
    // The hash of what decided a job's answer before `agent` existed (canonical JSON, as jobKey).
    const before = canonicalJson({
      prompt: 'x',
      model: null,
      system: null,
      servers: null,
      outputSchema: null,
    });
    expect(plain.key).toBe(`line:1:${createHash('sha256').update(before).digest('hex').slice(0, 12)}`);
    const empty = parseJobLine('{"prompt": "x", "agent": ""}', 4);
    expect(empty.kind === 'invalid' && empty.message).toMatch(/^line 4: "agent": /);
  });

  it('changes when a --var changes the filled prompt', () => {
    const one = jobOf(parseJobLine('Say {{w}}', 1, { vars: { w: 'a' } })).key;
    const two = jobOf(parseJobLine('Say {{w}}', 1, { vars: { w: 'b' } })).key;
    expect(one).not.toBe(two);
  });

  it('sorts keys in canonical JSON', () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[{"c":2,"d":1}]}');
  });
});

describe('a whole jobs file', () => {
  it('numbers lines from 1, keeps going after a bad line and refuses a repeated id', () => {
    const entries = parseJobLines([
      '{"id":"a","prompt":"one"}',
      '{oops',
      '',
      'plain',
      '{"id":"a","prompt":"two"}',
    ]);
    expect(entries.map((entry) => entry.kind)).toEqual(['job', 'invalid', 'blank', 'job', 'invalid']);
    expect(entries[1]).toMatchObject({ line: 2 });
    expect(entries[4]).toEqual({
      kind: 'invalid',
      line: 5,
      message: 'line 5: id "a" is already used by line 1',
    });
  });
});

describe('--var arguments', () => {
  it('split at the first =', () => {
    expect(parseVarArguments(['a=1', 'b=x=y', 'c='])).toEqual({ a: '1', b: 'x=y', c: '' });
  });

  it('are refused without = or with a bad name', () => {
    expect(() => parseVarArguments(['novalue'])).toThrow('--var "novalue": expected name=value');
    expect(() => parseVarArguments(['1x=2'])).toThrow('--var "1x=2"');
  });
});

describe('reading a results file', () => {
  it('skips a torn last line and lets a later line for a key win', () => {
    const text = [
      '{"key":"a","status":"failed"}',
      '{"key":"b","status":"ok"}',
      '{"key":"a","status":"ok"}',
      '{"key":"c","sta',
    ].join('\n');
    expect([...readResultKeys(text)]).toEqual([
      ['a', 'ok'],
      ['b', 'ok'],
    ]);
  });
});
