/**
 * A GGUF-shaped file for download tests: a valid GGUF v3 header (magic, version, no tensors, one
 * key `general.architecture = "llama"`) followed by deterministic filler bytes to reach a size.
 * It is not a model node-llama-cpp can load; the tiny loadable model is the provider's generator
 * (test/fixtures/tiny-gguf.ts on the provider's branch), into which the lead may fold this.
 */
import { createHash } from 'node:crypto';

function ggufString(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(bytes.length));
  return Buffer.concat([length, bytes]);
}

/** A GGUF header and `totalBytes - header` bytes of filler derived from `seed`. */
export function ggufShapedFile(totalBytes: number, seed = 'mcphost'): Buffer {
  const fixed = Buffer.alloc(4 + 4 + 8 + 8);
  fixed.write('GGUF', 0, 'latin1');
  fixed.writeUInt32LE(3, 4); // version
  fixed.writeBigUInt64LE(0n, 8); // tensor count
  fixed.writeBigUInt64LE(1n, 16); // metadata key/value count
  const valueType = Buffer.alloc(4);
  valueType.writeUInt32LE(8); // GGUF_TYPE_STRING
  const header = Buffer.concat([fixed, ggufString('general.architecture'), valueType, ggufString('llama')]);
  if (totalBytes < header.length)
    throw new RangeError(`a GGUF-shaped file needs at least ${header.length} bytes`);
  const filler = Buffer.alloc(totalBytes - header.length);
  // Filler that is not all zeros, so that a truncated or zero-padded copy has another SHA-256.
  let block = createHash('sha256').update(seed).digest();
  for (let offset = 0; offset < filler.length; offset += block.length) {
    block.copy(filler, offset);
    block = createHash('sha256').update(block).digest();
  }
  return Buffer.concat([header, filler]);
}
