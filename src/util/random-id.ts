/**
 * Random names: of files, sessions, tool calls and requests. They must not collide; they are not
 * secrets. So they come from `Math.random` (V8's xorshift128+, seeded for each process from the
 * system's entropy) rather than `node:crypto`, whose first import loads some twenty internal
 * modules (ciphers, key generation, X.509…): ~4 ms of CPU on every run, about 3% of a one-shot
 * answer (docs/benchmarks.md, the sixth pass).
 * What must stay unguessable (OAuth's `state`, PKCE) uses `node:crypto` (src/mcp/auth/).
 */

/** `length` random lowercase hex digits. */
export function randomHex(length: number): string {
  let hex = '';
  while (hex.length < length) {
    // 32 bits at a time: a double from Math.random carries 52 random bits, 8 hex digits fit.
    hex += Math.floor(Math.random() * 0x1_0000_0000)
      .toString(16)
      .padStart(8, '0');
  }
  return hex.slice(0, length);
}

/** A version 4 UUID (RFC 9562: 122 random bits, the version nibble 4, the variant bits 10). */
export function randomUuid(): string {
  const hex = randomHex(30);
  // The variant's two high bits are 10: one of 8, 9, a, b, from two more random bits.
  const variant = (0x8 | Math.floor(Math.random() * 4)).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(12, 15)}-${variant}${hex.slice(15, 18)}-${hex.slice(18)}`;
}
