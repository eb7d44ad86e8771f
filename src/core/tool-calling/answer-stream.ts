/**
 * The text of the `answer` field of a prompted step's JSON, as it streams. The chat must show the
 * answer as the model writes it, never the JSON around it; a general streaming JSON parser would
 * give values only once complete, so this small scanner follows the top-level object's keys and
 * decodes the one string wanted, character by character (escapes included, split or not).
 */

type State =
  /** Outside the answer's value: tracking strings, nesting and which key comes next. */
  | { readonly kind: 'scan' }
  /** Inside the answer's string. `escape` holds an escape read so far (`\`, `\u12`…). */
  | { readonly kind: 'answer'; escape: string }
  /** The answer's string has ended; the rest is ignored. */
  | { readonly kind: 'done' };

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/** Feeds chunks of a JSON object; each call returns the answer text decoded from that chunk. */
export class AnswerStream {
  readonly #key: string;
  #state: State = { kind: 'scan' };
  #depth = 0;
  #inString = false;
  #stringEscape = false;
  /** The string being read, when it is a key of the top-level object. */
  #keyText: string | undefined;
  /** True after a top-level `{` or `,`: the next string is a key. */
  #expectKey = false;
  /** The last key read at the top level, and whether its `:` has been seen. */
  #lastKey: string | undefined;
  #afterColon = false;

  constructor(key = 'answer') {
    this.#key = key;
  }

  /** True once the answer's string has been read to its closing quote. */
  get complete(): boolean {
    return this.#state.kind === 'done';
  }

  push(chunk: string): string {
    let out = '';
    for (const character of chunk) out += this.#read(character);
    return out;
  }

  #read(character: string): string {
    const state = this.#state;
    switch (state.kind) {
      case 'done':
        return '';
      case 'answer':
        return this.#readAnswer(state, character);
      case 'scan':
        this.#scan(character);
        return '';
      default: {
        const unexpected: never = state;
        throw new TypeError(`unknown state ${JSON.stringify(unexpected)}`);
      }
    }
  }

  #readAnswer(state: { kind: 'answer'; escape: string }, character: string): string {
    if (state.escape === '') {
      if (character === '\\') {
        state.escape = '\\';
        return '';
      }
      if (character === '"') {
        this.#state = { kind: 'done' };
        return '';
      }
      return character;
    }
    state.escape += character;
    if (state.escape.length === 2 && character !== 'u') {
      state.escape = '';
      return SIMPLE_ESCAPES[character] ?? character;
    }
    if (state.escape.length === 6) {
      const code = Number.parseInt(state.escape.slice(2), 16);
      state.escape = '';
      return Number.isNaN(code) ? '' : String.fromCharCode(code);
    }
    return '';
  }

  #scan(character: string): void {
    if (this.#inString) {
      if (this.#stringEscape) {
        this.#stringEscape = false;
        if (this.#keyText !== undefined) this.#keyText += character;
      } else if (character === '\\') {
        this.#stringEscape = true;
      } else if (character === '"') {
        this.#inString = false;
        if (this.#keyText !== undefined) {
          this.#lastKey = this.#keyText;
          this.#keyText = undefined;
        }
      } else if (this.#keyText !== undefined) {
        this.#keyText += character;
      }
      return;
    }
    if (character === '"') {
      if (this.#depth === 1 && this.#afterColon && this.#lastKey === this.#key) {
        this.#state = { kind: 'answer', escape: '' };
        return;
      }
      this.#inString = true;
      if (this.#depth === 1 && this.#expectKey) {
        this.#keyText = '';
        this.#expectKey = false;
        this.#afterColon = false;
      }
      return;
    }
    if (/\s/.test(character)) return;
    if (character === '{' || character === '[') {
      this.#depth += 1;
      if (this.#depth === 1 && character === '{') this.#expectKey = true;
      this.#afterColon = false;
      return;
    }
    if (character === '}' || character === ']') {
      this.#depth -= 1;
      return;
    }
    if (this.#depth !== 1) return;
    if (character === ',') {
      this.#expectKey = true;
      this.#afterColon = false;
    } else if (character === ':') {
      this.#afterColon = true;
    } else {
      // A number, `true`, `false` or `null`: not the string wanted.
      this.#afterColon = false;
    }
  }
}
