/** Parsing what a user types: prompt invocations, their arguments, resource mentions, form answers. */
import { describe, expect, it } from 'vitest';
import { bindPromptArguments, splitWords, type PromptEntry } from '../../src/mcp/prompts.js';
import { findResourceMentions, parsePromptInvocation } from '../../src/mcp/user-turn.js';
import { fieldQuestion, readFieldAnswer } from '../../src/cli/prompts/elicitation-prompt.js';
import { ConfigError } from '../../src/core/errors.js';
import type { FormField } from '../../src/mcp/elicitation-schema.js';

const SERVERS = ['everything', 'files'];
const GREET: PromptEntry = {
  server: 'files',
  name: 'greet',
  arguments: [
    { name: 'name', required: true, description: 'Who' },
    { name: 'mood', required: false },
  ],
};

describe('parsePromptInvocation', () => {
  it('reads /server:prompt and its words only for a configured server', () => {
    expect(parsePromptInvocation('/files:greet "Ada L" mood=calm', SERVERS)).toEqual({
      server: 'files',
      prompt: 'greet',
      words: ['Ada L', 'mood=calm'],
    });
    expect(parsePromptInvocation('  /everything:simple-prompt  ', SERVERS)).toEqual({
      server: 'everything',
      prompt: 'simple-prompt',
      words: [],
    });
    expect(parsePromptInvocation('/other:greet', SERVERS)).toBeUndefined();
    expect(parsePromptInvocation('/etc/hosts: what is it?', SERVERS)).toBeUndefined();
    expect(parsePromptInvocation('please /files:greet', SERVERS)).toBeUndefined();
  });
});

describe('splitWords and bindPromptArguments', () => {
  it('keeps quoted spaces and binds by name, then in order', () => {
    expect(splitWords(`a "b c" d='e f' g`)).toEqual(['a', 'b c', 'd=e f', 'g']);
    expect(bindPromptArguments(GREET, ['mood=calm', 'Ada'])).toEqual({
      values: { mood: 'calm', name: 'Ada' },
      missing: [],
    });
    expect(bindPromptArguments(GREET, ['mood=calm']).missing).toEqual([GREET.arguments[0]]);
    // An unknown name=value is a positional word, so it is not lost silently.
    expect(bindPromptArguments(GREET, ['colour=red']).values).toEqual({ name: 'colour=red' });
  });

  it('refuses words left over, naming them and the arguments', () => {
    expect(() => bindPromptArguments(GREET, ['a', 'b', 'c'])).toThrow(ConfigError);
    expect(() => bindPromptArguments(GREET, ['a', 'b', 'c'])).toThrow(
      'prompt /files:greet: too many arguments ("c" left over); it takes name (required: Who), mood',
    );
  });
});

describe('findResourceMentions', () => {
  it('finds @server:uri of configured servers, without trailing punctuation or repeats', () => {
    expect(
      findResourceMentions(
        'see @files:file:///tmp/a.txt, @everything:demo://x/1. and @files:file:///tmp/a.txt again; mail me@files:x',
        SERVERS,
      ),
    ).toEqual([
      { server: 'files', uri: 'file:///tmp/a.txt' },
      { server: 'everything', uri: 'demo://x/1' },
    ]);
    expect(findResourceMentions('@unknown:thing and bob@example.com', SERVERS)).toEqual([]);
  });
});

describe('readFieldAnswer', () => {
  const number: FormField = { name: 'n', required: true, kind: 'number', integer: true, default: 5 };
  const choice: FormField = {
    name: 'c',
    required: false,
    kind: 'multi-enum',
    options: [
      { value: 'g', label: 'Guitar' },
      { value: 'p', label: 'Piano' },
    ],
  };
  it('reads each kind, defaults on Enter, and says what is wrong', () => {
    expect(readFieldAnswer(number, '')).toEqual({ kind: 'value', value: 5 });
    expect(readFieldAnswer(number, '7')).toEqual({ kind: 'value', value: 7 });
    expect(readFieldAnswer(number, '7.5')).toEqual({ kind: 'invalid', error: 'a whole number, please' });
    expect(readFieldAnswer(number, 'x')).toEqual({ kind: 'invalid', error: '"x" is not a number' });
    expect(readFieldAnswer(choice, '')).toEqual({ kind: 'skip' });
    expect(readFieldAnswer(choice, '2, guitar')).toEqual({ kind: 'value', value: ['p', 'g'] });
    expect(readFieldAnswer(choice, 'drums')).toEqual({
      kind: 'invalid',
      error: '"drums" is not one of the choices',
    });
    const flag: FormField = { name: 'b', required: true, kind: 'boolean' };
    expect(readFieldAnswer(flag, 'Yes')).toEqual({ kind: 'value', value: true });
    expect(readFieldAnswer(flag, '')).toEqual({ kind: 'invalid', error: 'this field is required' });
  });

  it('asks with the type, bounds, requiredness and default', () => {
    expect(fieldQuestion({ ...number, title: 'Count', description: 'How many', minimum: 1 })).toBe(
      'n "Count" — How many (whole number, ≥ 1, required, Enter for 5): ',
    );
    expect(fieldQuestion(choice)).toBe('c (any of, comma-separated 1) Guitar 2) Piano, optional): ');
  });
});
