/**
 * Tool output reaches the model marked as data from outside (on by default). For fakes that play a
 * model repeating what a tool said, and for assertions on exact request bodies.
 */

/** `text` as Anthropic, OpenAI and Ollama requests carry a result of `source`. */
export function enveloped(source: string, text: string): string {
  return `<untrusted-tool-output source="${source}">\n${text}\n</untrusted-tool-output>`;
}

/** Ollama puts `Error: ` before a failed result's text, outside the envelope. */
const ENVELOPE = /^(Error: )?<untrusted-tool-output source="[^"]*">\n([\s\S]*)\n<\/untrusted-tool-output>$/;

/**
 * The tool's own text inside the envelope (what a fake model that repeats a tool reads as the
 * data), with Ollama's `Error: ` kept; text without the envelope as it is.
 */
export function unwrapped(content: string): string {
  const match = ENVELOPE.exec(content);
  return match === null ? content : `${match[1] ?? ''}${match[2] ?? ''}`;
}
