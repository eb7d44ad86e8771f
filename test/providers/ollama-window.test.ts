/** The window rules of providers/ollama-model-info.ts and the pull progress line of the chat. */
import { describe, expect, it } from 'vitest';
import { chooseOllamaWindow, modelWindowFromShow } from '../../providers/ollama-model-info.js';
import { pullProgressLine } from '../../src/cli/chat/model-pull.js';
import { formatBytes } from '../../src/cli/output/download-progress.js';

describe('chooseOllamaWindow', () => {
  it('takes the smaller of the trained length and 32k', () => {
    expect(chooseOllamaWindow({ trained: 131_072, modelfile: undefined })).toBe(32_768);
    expect(chooseOllamaWindow({ trained: 8_192, modelfile: undefined })).toBe(8_192);
    expect(chooseOllamaWindow({ trained: undefined, modelfile: undefined })).toBe(32_768);
  });

  it("keeps the Modelfile's num_ctx, but not past the trained length", () => {
    expect(chooseOllamaWindow({ trained: 131_072, modelfile: 65_536 })).toBe(65_536);
    expect(chooseOllamaWindow({ trained: 4_096, modelfile: 8_192 })).toBe(4_096);
  });

  it("sends the user's own figure as given", () => {
    expect(chooseOllamaWindow({ trained: 8_192, modelfile: 4_096 }, 100_000)).toBe(100_000);
  });
});

describe('modelWindowFromShow', () => {
  it('reads the trained length of any architecture and the num_ctx parameter', () => {
    expect(
      modelWindowFromShow({
        parameters: 'stop "<|im_end|>"\nnum_ctx 16384',
        model_info: { 'qwen2.general': 1, 'qwen2.context_length': 32_768 } as unknown as Map<string, unknown>,
      }),
    ).toEqual({ trained: 32_768, modelfile: 16_384 });
  });

  it('takes odd or missing fields as unknown', () => {
    expect(
      modelWindowFromShow({ model_info: { 'x.context_length': 'big' } as unknown as Map<string, unknown> }),
    ).toEqual({ trained: undefined, modelfile: undefined });
    expect(modelWindowFromShow(undefined)).toEqual({ trained: undefined, modelfile: undefined });
  });
});

describe('pullProgressLine', () => {
  it('shows the percent, a bar and the sizes of a layer', () => {
    expect(
      pullProgressLine({
        type: 'progress',
        status: 'pulling abc',
        digest: 'sha256:abc',
        total: 2e9,
        completed: 9e8,
      }),
    ).toBe('pulling abc  45% [###########-------------] 900.0 MB/2.0 GB');
    expect(pullProgressLine({ type: 'status', status: 'writing manifest' })).toBe('writing manifest');
  });

  it('writes sizes in decimal units', () => {
    expect([formatBytes(96), formatBytes(1_429), formatBytes(2_019_377_376)]).toEqual([
      '96 B',
      '1.4 KB',
      '2.0 GB',
    ]);
  });
});
