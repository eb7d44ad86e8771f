/**
 * Where a JSON text goes wrong, as a line, a column and a reason a person can act on.
 *
 * Node's `JSON.parse` messages differ between versions and often carry no position at all
 * (`Unexpected token '}', ..." is not valid JSON`), so when it fails we parse the text again with
 * jsonc-parser (the parser behind VS Code's settings editor, also used here to edit config files
 * in place) in strict mode, and turn its first error code and token into one sentence.
 */
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';

/** The first syntax error in a JSON text. `line` and `column` start at 1; columns count characters. */
export interface JsonSyntaxProblem {
  readonly line: number;
  readonly column: number;
  readonly reason: string;
}

/** Strict JSON (RFC 8259): no comments, no trailing commas, no empty text. */
const STRICT = { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false } as const;

/** Line and column (from 1, counting characters, not UTF-16 units) of an offset in a text. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  const line = before.split('\n').length;
  let column = 1;
  for (let index = lineStart; index < offset; index += 1) {
    // The second half of a surrogate pair is not a character of its own.
    const unit = text.charCodeAt(index);
    if (unit < 0xdc00 || unit > 0xdfff) column += 1;
  }
  return { line, column };
}

/** The JSON errors of `text`, in order (empty when it is valid JSON). */
export function jsonParseErrors(text: string): ParseError[] {
  const errors: ParseError[] = [];
  parse(text, errors, STRICT);
  return errors;
}

/**
 * The first syntax error in `text`, or `undefined` when it is valid JSON. Call it after
 * `JSON.parse` has failed, to tell the author where.
 */
export function findJsonSyntaxProblem(text: string): JsonSyntaxProblem | undefined {
  const [first, second] = jsonParseErrors(text);
  if (first === undefined) return undefined;
  const { offset, reason } = describe(text, first, second);
  return { ...lineAndColumn(text, offset), reason };
}

/** The offset of the comma right before `offset` (skipping whitespace), if there is one. */
function commaBefore(text: string, offset: number): number | undefined {
  let index = offset - 1;
  while (index >= 0 && /\s/.test(text[index] ?? '')) index -= 1;
  return text[index] === ',' ? index : undefined;
}

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u001f]/;

function quoted(token: string): string {
  return token.includes('"') ? `'${token}'` : `"${token}"`;
}

/** One error of jsonc-parser as a sentence, at the offset a person should look. */
function describe(
  text: string,
  error: ParseError,
  next: ParseError | undefined,
): { offset: number; reason: string } {
  const { offset } = error;
  const token = text.slice(offset, offset + Math.max(error.length, 1));
  const atEnd = offset >= text.length;
  const unexpected = (expected: string) => ({
    offset,
    reason: atEnd
      ? `unexpected end of file (expected ${expected})`
      : `unexpected ${quoted(token)} (expected ${expected})`,
  });
  const trailingComma = () => {
    const comma = commaBefore(text, offset);
    const closer = text[offset];
    return comma !== undefined && (closer === '}' || closer === ']')
      ? { offset: comma, reason: `trailing comma before "${closer}"` }
      : undefined;
  };
  // Its codes are an ambient const enum, which isolated modules cannot read: switch on their names.
  switch (printParseErrorCode(error.error)) {
    case 'ValueExpected':
      return trailingComma() ?? unexpected('a value');
    case 'PropertyNameExpected':
      return trailingComma() ?? unexpected('a property name in double quotes');
    case 'ColonExpected':
      return unexpected('":" after the property name');
    case 'CommaExpected':
      // `01`: jsonc-parser reads 0, then stops at 1.
      if (/[0-9]/.test(text[offset] ?? '') && /[-0-9]/.test(text[offset - 1] ?? '')) {
        return { offset: offset - 1, reason: 'invalid number' };
      }
      return unexpected(
        text.lastIndexOf('[', offset) > text.lastIndexOf('{', offset) ? '"," or "]"' : '"," or "}"',
      );
    case 'CloseBraceExpected':
      return unexpected('"," or "}"');
    case 'CloseBracketExpected':
      return unexpected('"," or "]"');
    case 'EndOfFileExpected':
      return { offset, reason: `unexpected ${quoted(token)} after the end of the JSON value` };
    case 'InvalidCommentToken':
    case 'UnexpectedEndOfComment':
      return { offset, reason: 'comments are not allowed in JSON' };
    case 'UnexpectedEndOfString': {
      const lineBreak = text.slice(offset, offset + error.length + 1).search(/[\r\n]/);
      return lineBreak >= 0
        ? { offset: offset + lineBreak, reason: 'line break inside a string (write it as \\n)' }
        : { offset, reason: 'unterminated string' };
    }
    case 'InvalidCharacter': {
      const control = text.slice(offset, offset + error.length).search(CONTROL_CHARACTER);
      return {
        offset: offset + Math.max(control, 0),
        reason: 'control character inside a string (escape it)',
      };
    }
    case 'InvalidEscapeCharacter':
    case 'InvalidUnicode': {
      const escape = text.indexOf('\\', offset);
      const at = escape < 0 ? offset : escape;
      return { offset: at, reason: `invalid escape "${text.slice(at, at + 2)}" in a string` };
    }
    case 'InvalidNumberFormat':
    case 'UnexpectedEndOfNumber':
      return { offset, reason: 'invalid number' };
    case 'InvalidSymbol':
      return describeSymbol(text, offset, token, next);
    case '<unknown ParseErrorCode>':
      return { offset, reason: 'invalid JSON' };
  }
}

/** A word or character that is not JSON: what was expected there comes from the error after it. */
function describeSymbol(
  text: string,
  offset: number,
  token: string,
  next: ParseError | undefined,
): { offset: number; reason: string } {
  if (token === '-' || /^-?\.?[0-9]/.test(token)) return { offset, reason: 'invalid number' };
  const word = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(token);
  const expected = next === undefined ? undefined : printParseErrorCode(next.error);
  if (expected === 'PropertyNameExpected' || expected === 'ColonExpected') {
    return { offset, reason: `unexpected ${quoted(token)} (expected a property name in double quotes)` };
  }
  if (expected === 'ValueExpected') {
    return {
      offset,
      reason: `unexpected ${quoted(token)} (expected a value${word ? '; text needs double quotes' : ''})`,
    };
  }
  // Nothing more went wrong after it: the JSON value had already ended.
  return next === undefined && text.slice(0, offset).trim() !== ''
    ? { offset, reason: `unexpected ${quoted(token)} after the end of the JSON value` }
    : { offset, reason: `unexpected ${quoted(token)} (expected a value)` };
}
