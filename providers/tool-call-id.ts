import { randomBytes } from 'node:crypto';

/**
 * A fresh tool-call id, for vendors whose calls carry none (Ollama, Gemini). Random rather than
 * counted, so ids stay unique across saved and reloaded sessions.
 */
export function createToolCallId(): string {
  return `call_${randomBytes(12).toString('hex')}`;
}
