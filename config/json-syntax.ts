/**
 * Where a JSON text goes wrong, as a line, a column and a reason a person can act on.
 *
 * Node's `JSON.parse` messages differ between versions and often carry no position at all
 * (`Unexpected token '}', ..." is not valid JSON`), so when it fails we scan the text again with
 * this small strict reader, which follows the JSON grammar (RFC 8259) and stops at the first fault.
 */

/** The first syntax error in a JSON text. `line` and `column` start at 1; columns count characters. */
export interface JsonSyntaxProblem {
  readonly line: number;
  readonly column: number;
  readonly reason: string;
}

/** Thrown inside the scanner to stop at the first fault; never leaves this module. */
class JsonSyntaxStop extends Error {
  readonly offset: number;
  constructor(offset: number, reason: string) {
    super(reason);
    this.offset = offset;
  }
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const SIMPLE_ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const WORD = /[A-Za-z_$][A-Za-z0-9_$]*/y;
const HEX4 = /^[0-9A-Fa-f]{4}$/;

/** Reads one JSON text, throwing {@link JsonSyntaxStop} at the first fault. */
class JsonScanner {
  private offset = 0;
  constructor(private readonly text: string) {}

  scanDocument(): void {
    this.scanValue('a value');
    this.skipWhitespace();
    if (this.offset < this.text.length) {
      throw new JsonSyntaxStop(this.offset, `unexpected ${this.token()} after the end of the JSON value`);
    }
  }

  private scanValue(expected: string): void {
    this.skipWhitespace();
    const character = this.text[this.offset];
    if (character === '{') {
      this.scanObject();
      return;
    }
    if (character === '[') {
      this.scanArray();
      return;
    }
    if (character === '"') {
      this.scanString();
      return;
    }
    if (character === '-' || (character !== undefined && character >= '0' && character <= '9')) {
      this.scanNumber();
      return;
    }
    WORD.lastIndex = this.offset;
    const word = WORD.exec(this.text)?.[0];
    if (word === 'true' || word === 'false' || word === 'null') {
      this.offset += word.length;
      return;
    }
    const hint = word === undefined ? '' : '; text needs double quotes';
    throw this.unexpected(`${expected}${hint}`);
  }

  private scanObject(): void {
    this.offset += 1;
    this.skipWhitespace();
    if (this.text[this.offset] === '}') {
      this.offset += 1;
      return;
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.offset] !== '"') throw this.unexpected('a property name in double quotes');
      this.scanString();
      this.skipWhitespace();
      if (this.text[this.offset] !== ':') throw this.unexpected('":" after the property name');
      this.offset += 1;
      this.scanValue('a value');
      this.skipWhitespace();
      const next = this.text[this.offset];
      if (next === '}') {
        this.offset += 1;
        return;
      }
      if (next !== ',') throw this.unexpected('"," or "}"');
      this.rejectTrailingComma('}');
    }
  }

  private scanArray(): void {
    this.offset += 1;
    this.skipWhitespace();
    if (this.text[this.offset] === ']') {
      this.offset += 1;
      return;
    }
    for (;;) {
      this.scanValue('a value');
      this.skipWhitespace();
      const next = this.text[this.offset];
      if (next === ']') {
        this.offset += 1;
        return;
      }
      if (next !== ',') throw this.unexpected('"," or "]"');
      this.rejectTrailingComma(']');
    }
  }

  /** At a comma: steps over it, or stops there if only `closer` follows (the commonest JSON slip). */
  private rejectTrailingComma(closer: string): void {
    const commaOffset = this.offset;
    this.offset += 1;
    this.skipWhitespace();
    if (this.text[this.offset] === closer) {
      throw new JsonSyntaxStop(commaOffset, `trailing comma before "${closer}"`);
    }
  }

  private scanString(): void {
    const start = this.offset;
    this.offset += 1;
    for (;;) {
      const character = this.text[this.offset];
      if (character === undefined) throw new JsonSyntaxStop(start, 'unterminated string');
      if (character === '"') {
        this.offset += 1;
        return;
      }
      if (character === '\\') {
        const escaped = this.text[this.offset + 1];
        if (escaped !== undefined && SIMPLE_ESCAPES.has(escaped)) {
          this.offset += 2;
          continue;
        }
        if (escaped === 'u' && HEX4.test(this.text.slice(this.offset + 2, this.offset + 6))) {
          this.offset += 6;
          continue;
        }
        throw new JsonSyntaxStop(this.offset, `invalid escape "\\${escaped ?? ''}" in a string`);
      }
      if (character === '\n' || character === '\r') {
        throw new JsonSyntaxStop(this.offset, 'line break inside a string (write it as \\n)');
      }
      if (character < ' ') {
        throw new JsonSyntaxStop(this.offset, 'control character inside a string (escape it)');
      }
      this.offset += 1;
    }
  }

  private scanNumber(): void {
    const start = this.offset;
    NUMBER.lastIndex = start;
    const match = NUMBER.exec(this.text)?.[0] ?? '';
    const after = this.text[start + match.length];
    if (match === '' || match === '-' || (after !== undefined && /[0-9A-Za-z.+-]/.test(after))) {
      throw new JsonSyntaxStop(start, 'invalid number');
    }
    this.offset += match.length;
  }

  private skipWhitespace(): void {
    for (;;) {
      const character = this.text[this.offset];
      if (character !== undefined && WHITESPACE.has(character)) {
        this.offset += 1;
      } else if (
        character === '/' &&
        (this.text[this.offset + 1] === '/' || this.text[this.offset + 1] === '*')
      ) {
        throw new JsonSyntaxStop(this.offset, 'comments are not allowed in JSON');
      } else {
        return;
      }
    }
  }

  /** The thing found where something else was expected, as the author would name it. */
  private token(): string {
    WORD.lastIndex = this.offset;
    const word = WORD.exec(this.text)?.[0];
    if (word !== undefined) return `"${word}"`;
    const character = String.fromCodePoint(this.text.codePointAt(this.offset) ?? 0);
    return character === '"' ? `'"'` : JSON.stringify(character);
  }

  private unexpected(expected: string): JsonSyntaxStop {
    if (this.offset >= this.text.length) {
      return new JsonSyntaxStop(this.offset, `unexpected end of file (expected ${expected})`);
    }
    return new JsonSyntaxStop(this.offset, `unexpected ${this.token()} (expected ${expected})`);
  }
}

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

/**
 * The first syntax error in `text`, or `undefined` when it is valid JSON. Call it after
 * `JSON.parse` has failed, to tell the author where.
 */
export function findJsonSyntaxProblem(text: string): JsonSyntaxProblem | undefined {
  try {
    new JsonScanner(text).scanDocument();
    return undefined;
  } catch (error) {
    if (!(error instanceof JsonSyntaxStop)) throw error;
    return { ...lineAndColumn(text, error.offset), reason: error.message };
  }
}
