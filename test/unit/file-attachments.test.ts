/** `@path` attachments: which words are paths, what a file becomes, and the one-line refusals. */
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  attachFiles,
  findPathMentions,
  IMAGE_ATTACHMENT_LIMIT,
  isPathMention,
  TEXT_ATTACHMENT_LIMIT,
  type AttachmentPlaces,
} from '../../src/cli/file-attachments.js';
import { ConfigError } from '../../src/core/errors.js';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

let root: string;
let places: AttachmentPlaces;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'mcphost-attach-'));
  await mkdir(join(root, 'cwd', 'src'), { recursive: true });
  await mkdir(join(root, 'home'));
  places = { cwd: join(root, 'cwd'), home: join(root, 'home') };
  await writeFile(join(root, 'cwd', 'notes.md'), 'buy ```milk```\n');
  await writeFile(join(root, 'cwd', 'src', 'a.ts'), 'export const a = 1;');
  await writeFile(join(root, 'home', 'todo.txt'), 'home list\n');
  await writeFile(join(root, 'cwd', 'pic.dat'), PNG);
  await writeFile(join(root, 'cwd', 'blob.bin'), Buffer.from([1, 0, 2]));
  await writeFile(join(root, 'cwd', 'big.txt'), 'x'.repeat(TEXT_ATTACHMENT_LIMIT + 1));
  await writeFile(join(root, 'cwd', 'huge.png'), Buffer.concat([PNG, Buffer.alloc(IMAGE_ATTACHMENT_LIMIT)]));
  await writeFile(join(root, 'cwd', 'secret.txt'), 'no');
  await chmod(join(root, 'cwd', 'secret.txt'), 0o000);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('the @path rule', () => {
  it('takes ./, ../, /, ~/ and names with a / or a . as paths', () => {
    for (const word of ['./x', '../x', '/etc/hosts', '~/x', 'src/a.ts', 'notes.md']) {
      expect(isPathMention(word), word).toBe(true);
    }
  });

  it('leaves server:uri, handles and URLs alone', () => {
    for (const word of ['fs:file:///a.txt', 'alice', 'docs:notes.md', 'http://example.com/x', '']) {
      expect(isPathMention(word), word).toBe(false);
    }
  });

  it('finds each path once, after white space only, without trailing punctuation', () => {
    const text = '@notes.md and mail bob@example.com, see @src/a.ts. Again @notes.md! @alice @fs:x.txt';
    expect(findPathMentions(text)).toEqual(['notes.md', 'src/a.ts']);
  });
});

describe('attaching', () => {
  it('sends text as a fenced block headed by its path, longer fence than the text holds', async () => {
    const { blocks, notes } = await attachFiles('read @notes.md and @~/todo.txt', places);
    expect(blocks).toEqual([
      { type: 'text', text: 'notes.md\n````\nbuy ```milk```\n````' },
      { type: 'text', text: '~/todo.txt\n```\nhome list\n```' },
    ]);
    expect(notes).toEqual(['attached @notes.md (15 bytes)', 'attached @~/todo.txt (10 bytes)']);
  });

  it('sends an image (known by its bytes, not its name) as an image block', async () => {
    const { blocks } = await attachFiles('look at @./pic.dat', places);
    expect(blocks[1]).toEqual({ type: 'image', mimeType: 'image/png', data: PNG.toString('base64') });
  });

  it.each([
    ['@./missing.txt', '@./missing.txt: no such file'],
    ['@src/', '@src/: is a folder, not a file'],
    ['@blob.bin', '@blob.bin: is a binary file (only text and png, jpeg, gif or webp images attach)'],
    [
      '@big.txt',
      `@big.txt: is too large to attach (${TEXT_ATTACHMENT_LIMIT + 1} bytes; the limit is ${TEXT_ATTACHMENT_LIMIT})`,
    ],
    [
      '@huge.png',
      `@huge.png: is too large to attach (${IMAGE_ATTACHMENT_LIMIT + 8 + 3} bytes; the limit is ${IMAGE_ATTACHMENT_LIMIT})`,
    ],
  ])('refuses %s in one line naming it', async (mention, message) => {
    const attempt = attachFiles(`@notes.md then ${mention}`, places);
    await expect(attempt).rejects.toThrow(ConfigError);
    await expect(attempt).rejects.toThrow(message);
  });

  it.skipIf(process.getuid?.() === 0)('refuses a file it may not read', async () => {
    await expect(attachFiles('@secret.txt', places)).rejects.toThrow(
      '@secret.txt: cannot be read (permission denied)',
    );
  });
});
