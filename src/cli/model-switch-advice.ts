/** Advice that fits `/model`, where flags and the environment can no longer be changed. */
import { ConfigError } from '../core/errors.js';

/**
 * A provider's "export it or pass --provider-api-key" cannot be followed inside the chat: say
 * what can (the conversation is saved, so `-c` picks it up again).
 */
export function inChatAdvice(error: unknown): unknown {
  if (!(error instanceof ConfigError) || !error.detail.includes('--provider-api-key')) return error;
  const detail = error.detail.replace(
    /;? ?(export it )?or pass --provider-api-key/,
    '; quit, export it (or start with --provider-api-key), and run mcphost -c to go on with this conversation',
  );
  return new ConfigError(error.source, detail, { cause: error });
}
