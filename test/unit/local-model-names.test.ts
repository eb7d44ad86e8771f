import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import {
  DEFAULT_LOCAL_MODEL,
  localModelLabel,
  parseLocalModelName,
  SHORT_MODEL_NAMES,
} from '../../providers/local/model-names.js';

const parse = (text: string) =>
  parseLocalModelName(text, { source: '--model', cwd: '/work', homeDir: '/home/me' });

describe('parseLocalModelName', () => {
  it('reads hf:owner/repo:QUANT as node-llama-cpp does, quantization upper-cased', () => {
    expect(parse('hf:Qwen/Qwen3-4B-GGUF:q4_k_m')).toEqual({
      kind: 'hugging-face-quant',
      uri: 'hf:Qwen/Qwen3-4B-GGUF:Q4_K_M',
      owner: 'Qwen',
      repository: 'Qwen3-4B-GGUF',
      tag: 'Q4_K_M',
    });
    expect(parse('hf:Qwen/Qwen3-4B-GGUF')).toMatchObject({
      uri: 'hf:Qwen/Qwen3-4B-GGUF:latest',
      tag: 'latest',
    });
    expect(parse('huggingface:Qwen/Qwen3-4B-GGUF:Q8_0')).toMatchObject({ uri: 'hf:Qwen/Qwen3-4B-GGUF:Q8_0' });
  });

  it('reads hf:owner/repo/path/file.gguf with an optional #branch', () => {
    expect(parse('hf:me/models/sub/tiny.gguf')).toEqual({
      kind: 'hugging-face-file',
      uri: 'hf:me/models/sub/tiny.gguf',
      owner: 'me',
      repository: 'models',
      filePath: 'sub/tiny.gguf',
      branch: 'main',
    });
    expect(parse('hf:me/models/tiny.gguf#dev')).toMatchObject({
      branch: 'dev',
      uri: 'hf:me/models/tiny.gguf#dev',
    });
  });

  it('reads file paths: absolute, relative to the folder, and under ~', () => {
    expect(parse('/models/a.gguf')).toEqual({ kind: 'file', path: '/models/a.gguf' });
    expect(parse('./a.gguf')).toEqual({ kind: 'file', path: '/work/a.gguf' });
    expect(parse('b.gguf')).toEqual({ kind: 'file', path: '/work/b.gguf' });
    expect(parse('~/m/c.gguf')).toEqual({ kind: 'file', path: '/home/me/m/c.gguf' });
  });

  it('maps every short name to a Hugging Face URI it parses, and the default is one of them', () => {
    for (const entry of SHORT_MODEL_NAMES) {
      const reference = parse(entry.name.toUpperCase());
      expect(reference.kind).not.toBe('file');
      expect(localModelLabel(reference)).toBe(entry.name);
      expect(reference).toMatchObject({
        uri: parse(entry.uri).kind === 'file' ? '' : (parse(entry.uri) as { uri: string }).uri,
      });
    }
    expect(SHORT_MODEL_NAMES.map((entry) => entry.name)).toContain(DEFAULT_LOCAL_MODEL);
  });

  it.each([
    ['', 'is empty'],
    ['qwen9', 'is not a known short name'],
    ['hf:', 'has no valid owner after hf:'],
    ['hf:owner', 'has no valid repository after the owner'],
    ['hf:owner/repo:Q4:extra', 'has a bad quantization'],
    ['hf:owner/repo/../x.gguf', 'has an empty or relative segment'],
    ['hf:owner/repo/readme.md', 'does not name a .gguf file'],
    ['./model.bin', 'is a path but not a .gguf file'],
  ])('rejects %j with one line naming the flag and the accepted forms', (text, why) => {
    let error: unknown;
    try {
      parse(text);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toContain(`--model: local model "${text}" ${why}`);
    expect(message).toContain('hf:owner/repo:QUANT, hf:owner/repo/file.gguf, or a path to a .gguf file');
    expect(message).not.toContain('\n');
  });
});
