import { describe, expect, it } from 'vitest';
import type { VariableReference } from '../../config/variables.js';
import { describeExpansionFailure, environmentLookup, expandVariables } from '../../config/variables.js';

const env = { HOME: '/home/ada', EMPTY: '', TOKEN: 's3cret' };
const expand = (text: string) => expandVariables(text, environmentLookup(env));

describe('expandVariables', () => {
  it.each([
    ['${HOME}/notes', '/home/ada/notes'],
    ['${env://HOME}/notes', '/home/ada/notes'],
    ['${UNSET:-/tmp}', '/tmp'],
    ['${env://UNSET:-/tmp}', '/tmp'],
    ['${HOME:-/tmp}', '/home/ada'],
    ['${env://HOME:-/tmp}', '/home/ada'],
    // `:-` takes the default for an empty value too, as the shell does.
    ['${EMPTY:-fallback}', 'fallback'],
    ['${env://EMPTY:-fallback}', 'fallback'],
    // Without a default an empty value is still a value.
    ['[${EMPTY}]', '[]'],
    ['${UNSET:-}', ''],
    ['Bearer ${TOKEN}', 'Bearer s3cret'],
    ['${HOME}:${TOKEN}:${UNSET:-x}', '/home/ada:s3cret:x'],
    ['default with spaces ${UNSET:-a b:c-d}', 'default with spaces a b:c-d'],
    ['no variables at all', 'no variables at all'],
    ['$HOME and $ alone and $$ too', '$HOME and $ alone and $$ too'],
    ['$${HOME} is literal', '${HOME} is literal'],
    ['echo $${PATH} then ${HOME}', 'echo ${PATH} then /home/ada'],
    ['', ''],
  ])('%s → %s', (text, expected) => {
    expect(expand(text)).toEqual({ kind: 'expanded', value: expected });
  });

  it('reports the first variable that is not set, as written', () => {
    const result = expand('${HOME}/${ROOT}/${OTHER}');
    expect(result).toEqual({
      kind: 'missing',
      reference: { name: 'ROOT', envScheme: false, defaultValue: undefined, written: '${ROOT}' },
    });
  });

  it('tells the env:// form apart', () => {
    const result = expand('${env://ROOT}');
    expect(result.kind === 'missing' && result.reference).toEqual({
      name: 'ROOT',
      envScheme: true,
      defaultValue: undefined,
      written: '${env://ROOT}',
    });
  });

  it.each([['${foo.bar}'], ['${1ABC}'], ['${}'], ['${VAR-default}'], ['${env://}'], ['${ VAR }']])(
    'refuses the malformed %s',
    (text) => {
      expect(expand(`x ${text} y`)).toEqual({ kind: 'malformed', written: text });
    },
  );

  it('refuses a ${ that is never closed', () => {
    expect(expand('a ${HOME')).toEqual({ kind: 'malformed', written: '${HOME' });
  });

  it('does not read inherited properties of the environment object', () => {
    expect(expand('${toString}').kind).toBe('missing');
  });

  it('takes values from any lookup (script arguments, later)', () => {
    const seen: VariableReference[] = [];
    const result = expandVariables('${name} ${env://name}', (reference) => {
      seen.push(reference);
      return reference.envScheme ? 'from-env' : 'from-args';
    });
    expect(result).toEqual({ kind: 'expanded', value: 'from-args from-env' });
    expect(seen.map((reference) => reference.envScheme)).toEqual([false, true]);
  });
});

describe('describeExpansionFailure', () => {
  it('names the variable and how it was written', () => {
    const result = expand('${env://ROOT}');
    if (result.kind === 'expanded') throw new Error('expected a failure');
    expect(describeExpansionFailure(result)).toBe(
      'environment variable ROOT is not set (used as ${env://ROOT} with no default)',
    );
  });

  it('shows the malformed text and the accepted forms', () => {
    const result = expand('${foo.bar}');
    if (result.kind === 'expanded') throw new Error('expected a failure');
    expect(describeExpansionFailure(result)).toBe(
      'malformed variable "${foo.bar}" (write ${NAME}, ${NAME:-default} or ${env://NAME}; $${ for a literal ${)',
    );
  });
});
