/**
 * SHA-256 as hex, with `node:crypto` loaded on the first call rather than when a module imports it:
 * the hashes (a project config's trust, a long tool name, an audit record) are needed by some runs
 * only, and the module costs ~4 ms of CPU to load (see random-id.ts).
 */
import type * as Crypto from 'node:crypto';

let crypto: typeof Crypto | undefined;

export function sha256Hex(text: string): string {
  crypto ??= process.getBuiltinModule('node:crypto');
  return crypto.createHash('sha256').update(text, 'utf8').digest('hex');
}
