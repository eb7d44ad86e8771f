/**
 * The chat's side of a server's elicitation. Form mode: the server's message, then each field
 * asked with its type, description, default, choices and whether it is required, each answer
 * checked against the field's schema as it is typed. URL mode: the full URL and its host; once
 * the user agrees, the page opens in the system browser (or, where there is none, the URL stays on
 * screen to open by hand); nothing is sent back but the user's yes or no.
 */
import { askOnce, MAX_ATTEMPTS, type PromptIO } from './ask-answer.js';
import { CANCELLED } from '../../util/abort.js';
import { checkAnswer, readForm, type FieldOption, type FormField } from '../../mcp/elicitation-schema.js';
import type { ElicitationAnswer, ElicitationRequest } from '../../core/questions.js';
import { stripControlCharacters } from '../../safety/output-limits.js';

/** Answers to one field not understood before the form is declined. */
/** Typed instead of a field's answer: stop and tell the server the user cancelled. */
const CANCEL_WORD = ':cancel';

/** A typed answer read as a field's value: the value, nothing (skip), or what is wrong. */
export type FieldReading =
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'skip' }
  | { readonly kind: 'invalid'; readonly error: string };

/**
 * Reads what the user typed for a field: Enter takes the default (or skips an optional field),
 * `y`/`n` answer a boolean, a number or a label picks a choice, commas separate several.
 */
export function readFieldAnswer(field: FormField, typed: string): FieldReading {
  const text = typed.trim();
  if (text === '') {
    if (field.default !== undefined) return { kind: 'value', value: field.default };
    return field.required ? { kind: 'invalid', error: 'this field is required' } : { kind: 'skip' };
  }
  switch (field.kind) {
    case 'string':
      return { kind: 'value', value: text };
    case 'number': {
      const value = Number(text);
      if (!Number.isFinite(value)) return { kind: 'invalid', error: `"${text}" is not a number` };
      if (field.integer && !Number.isInteger(value))
        return { kind: 'invalid', error: 'a whole number, please' };
      return { kind: 'value', value };
    }
    case 'boolean': {
      const word = text.toLowerCase();
      if (['y', 'yes', 'true'].includes(word)) return { kind: 'value', value: true };
      if (['n', 'no', 'false'].includes(word)) return { kind: 'value', value: false };
      return { kind: 'invalid', error: 'answer y or n' };
    }
    case 'enum': {
      const choice = pickOption(field.options, text);
      return choice === undefined
        ? { kind: 'invalid', error: `"${text}" is not one of the choices` }
        : { kind: 'value', value: choice };
    }
    case 'multi-enum': {
      const values: string[] = [];
      for (const part of text.split(',')) {
        const choice = pickOption(field.options, part.trim());
        if (choice === undefined)
          return { kind: 'invalid', error: `"${part.trim()}" is not one of the choices` };
        values.push(choice);
      }
      return { kind: 'value', value: values };
    }
    default: {
      const unexpected: never = field;
      return { kind: 'invalid', error: `unknown field ${JSON.stringify(unexpected)}` };
    }
  }
}

function pickOption(options: readonly FieldOption[], text: string): string | undefined {
  const index = /^\d+$/.test(text) ? Number(text) - 1 : -1;
  const byIndex = options[index];
  if (byIndex !== undefined) return byIndex.value;
  const lower = text.toLowerCase();
  return options.find(
    (option) => option.value.toLowerCase() === lower || option.label.toLowerCase() === lower,
  )?.value;
}

/** The question for one field: `email — Your email address (string, email, required): `. */
export function fieldQuestion(field: FormField): string {
  const clean = (text: string) => stripControlCharacters(text);
  const label = field.title === undefined ? field.name : `${field.name} "${clean(field.title)}"`;
  const description = field.description === undefined ? '' : ` — ${clean(field.description)}`;
  const notes: string[] = [];
  switch (field.kind) {
    case 'string':
      notes.push(field.format ?? 'text');
      break;
    case 'number':
      notes.push(field.integer ? 'whole number' : 'number');
      if (field.minimum !== undefined) notes.push(`≥ ${field.minimum}`);
      if (field.maximum !== undefined) notes.push(`≤ ${field.maximum}`);
      break;
    case 'boolean':
      notes.push('y/n');
      break;
    case 'enum':
    case 'multi-enum':
      notes.push(
        `${field.kind === 'enum' ? 'one of' : 'any of, comma-separated'} ${field.options
          .map((option, index) => `${index + 1}) ${clean(option.label)}`)
          .join(' ')}`,
      );
      break;
  }
  notes.push(field.required ? 'required' : 'optional');
  if (field.default !== undefined) notes.push(`Enter for ${clean(JSON.stringify(field.default))}`);
  return `${label}${description} (${notes.join(', ')}): `;
}

/** How a URL the user agreed to is opened: true when a browser was started for it. */
export type OpenUrl = (url: string) => Promise<boolean>;

/** The chat's `elicit` answer to a server. Without `openUrl`, the user opens the page by hand. */
export function createElicitationPrompt(
  io: PromptIO,
  openUrl?: OpenUrl,
): (request: ElicitationRequest) => Promise<ElicitationAnswer> {
  return async (request) => {
    const server = stripControlCharacters(request.server);
    const message = stripControlCharacters(request.message);
    if (request.mode === 'url') {
      const host = new URL(request.url).host;
      io.write(
        `Server "${server}" asks you to open a page: ${message}\n  url:  ${stripControlCharacters(request.url)}\n  host: ${host}\n`,
      );
      const typed = await askOnce(io, `Open it in your browser? [y] yes  [n] no: `, {
        signal: request.signal,
      });
      if (typed === undefined) return { action: 'cancel' };
      if (!/^y(es)?$/i.test(typed.trim())) return { action: 'decline' };
      const opened = (await openUrl?.(request.url)) ?? false;
      io.write(
        opened ? `Opened ${host} in your browser.\n` : `No browser here: open the URL above yourself.\n`,
      );
      return { action: 'accept' };
    }
    const form = readForm(request.requestedSchema);
    if (!form.ok) {
      io.write(`Server "${server}" asked for a form the chat cannot show (${form.reason}): declined.\n`);
      return { action: 'decline' };
    }
    io.write(`Server "${server}" asks for input: ${message}\n`);
    const start = await askOnce(io, `Answer? [y] fill in  [n] decline  [c] cancel: `, {
      signal: request.signal,
    });
    if (start === undefined || /^c(ancel)?$/i.test(start.trim())) return { action: 'cancel' };
    if (!/^y(es)?$/i.test(start.trim())) return { action: 'decline' };
    io.write(`(Type ${CANCEL_WORD} at any field to stop.)\n`);
    const properties = (request.requestedSchema.properties ?? {}) as Readonly<Record<string, unknown>>;
    const content: Record<string, unknown> = {};
    for (const field of form.fields) {
      const value = await askField(io, field, properties[field.name], request.signal);
      if (value === CANCELLED) return { action: 'cancel' };
      if (value !== undefined) content[field.name] = value;
    }
    return { action: 'accept', content: content };
  };
}

/** One field, asked until its answer fits its own schema; undefined skips it. */
async function askField(
  io: PromptIO,
  field: FormField,
  property: unknown,
  signal: AbortSignal,
): Promise<unknown> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const typed = await askOnce(io, fieldQuestion(field), { signal });
    if (typed === undefined || typed.trim() === CANCEL_WORD) return CANCELLED;
    const reading = readFieldAnswer(field, typed);
    if (reading.kind === 'skip') return undefined;
    if (reading.kind === 'invalid') {
      io.write(`  ${reading.error}\n`);
      continue;
    }
    // The field's own schema (formats, lengths, bounds, item counts), checked as the server will.
    const problem = checkAnswer(
      { type: 'object', properties: { [field.name]: property } },
      { [field.name]: reading.value },
    );
    if (problem === undefined) return reading.value;
    io.write(`  ${problem.replace(/^data\//, '')}\n`);
  }
  io.write('  No usable answer: cancelled.\n');
  return CANCELLED;
}
