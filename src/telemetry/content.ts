/**
 * Prompt, answer and tool content, for a run that asked to record it
 * (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` or `telemetry.captureContent`):
 * what the untrusted-content screen would redact is redacted (prompt-injection findings), and so
 * is anything that looks like a secret (keys, tokens, passwords in URLs).
 */
import { detectInjection, redactFindings } from '../safety/injection.js';
import { redactSecrets, redactText } from '../safety/redact.js';

/** The longest text recorded in one attribute; back ends refuse or cut larger values anyway. */
const MAX_CAPTURED_CHARACTERS = 8_192;

export function captureText(text: string): string {
  const redacted = redactText(redactFindings(text, detectInjection(text)));
  return redacted.length <= MAX_CAPTURED_CHARACTERS
    ? redacted
    : `${redacted.slice(0, MAX_CAPTURED_CHARACTERS)}… [cut]`;
}

export function captureArguments(input: Readonly<Record<string, unknown>>): string {
  return captureText(JSON.stringify(redactSecrets(input)));
}
