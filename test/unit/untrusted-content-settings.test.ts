/**
 * The untrusted-content settings as a user gives them: the command-line flags (each overriding one
 * field of the config's `untrustedContent`), the merge with the config, and the chat's answers to
 * the flagged-content question.
 */
import { describe, expect, it } from 'vitest';
import { parseArguments, type CliOptions } from '../../src/cli/args.js';
import {
  describeFlaggedContent,
  parseFlaggedContentAnswer,
} from '../../src/cli/prompts/flagged-content-prompt.js';
import { ConfigError } from '../../src/core/errors.js';
import { mergeSafetyOptions } from '../../src/safety/options.js';

function options(...argv: string[]): CliOptions {
  const parsed = parseArguments(argv, '1.2.3');
  if (parsed.kind !== 'run') throw new Error(`expected a run, got ${parsed.kind}`);
  return parsed.options;
}

describe('--injection-policy, --no-mark-tool-output, --no-untrusted-clause', () => {
  it('leaves untrustedContent unset when none is given, so the config decides', () => {
    expect(options().untrustedContent).toBeUndefined();
  });

  it('sets only the fields given', () => {
    expect(options('--injection-policy', 'ask').untrustedContent).toEqual({ policy: 'ask' });
    expect(options('--no-mark-tool-output').untrustedContent).toEqual({ markAsData: false });
    expect(options('--no-untrusted-clause', '--mark-tool-output').untrustedContent).toEqual({
      markAsData: true,
      systemPromptClause: false,
    });
  });

  it('refuses an unknown policy, naming the flag and the choices', () => {
    expect(() => options('--injection-policy', 'loud')).toThrow(ConfigError);
    expect(() => options('--injection-policy', 'loud')).toThrow(
      '--injection-policy: "loud" is not one of warn, ask, redact, block',
    );
  });

  it('overrides one field of the config, keeping the others', () => {
    const merged = mergeSafetyOptions(
      { untrustedContent: { policy: 'block', markAsData: true }, approveAll: false },
      { untrustedContent: { systemPromptClause: false }, approveAll: true },
    );
    expect(merged).toEqual({
      untrustedContent: { policy: 'block', markAsData: true, systemPromptClause: false },
      approveAll: true,
    });
  });
});

describe('the chat question about flagged content', () => {
  it('reads show, redact and withhold in their short and long forms', () => {
    expect(['s', 'Show', 'y', 'pass'].map(parseFlaggedContentAnswer)).toEqual(
      Array(4).fill({ kind: 'show' }),
    );
    expect(['r', 'REDACT'].map(parseFlaggedContentAnswer)).toEqual(Array(2).fill({ kind: 'redact' }));
    expect(['w', 'withhold', 'n'].map(parseFlaggedContentAnswer)).toEqual(
      Array(3).fill({ kind: 'withhold' }),
    );
    expect(parseFlaggedContentAnswer('maybe')).toBeUndefined();
  });

  it('shows hidden characters and strips terminal escapes in what it shows', () => {
    const text = describeFlaggedContent({
      source: 'web__fetch',
      server: 'web',
      findings: ['has 1 bidirectional control character (reorders what is read)'],
      preview: 'price: 10\u202e$\u001b[2Jcleared\u{E0041}\u{E0042}',
      signal: new AbortController().signal,
    });
    expect(text).toContain('from:      web__fetch');
    expect(text).toContain('server:    web');
    expect(text).toContain('⟦hidden: AB⟧');
    expect(text).not.toContain('\u202e');
    expect(text).not.toContain('\u001b');
  });
});
