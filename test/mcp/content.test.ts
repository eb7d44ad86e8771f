import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { toToolResultBody } from '../../src/mcp/content.js';

function result(content: ContentBlock[], extra: Partial<CallToolResult> = {}): CallToolResult {
  return { content, ...extra };
}

describe('toToolResultBody', () => {
  it('keeps text and images as they are', () => {
    const body = toToolResultBody(
      result([
        { type: 'text', text: 'hello' },
        { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
      ]),
    );
    expect(body).toEqual({
      content: [
        { type: 'text', text: 'hello' },
        { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
      ],
      isError: false,
    });
  });

  it('keeps isError', () => {
    expect(toToolResultBody(result([{ type: 'text', text: 'boom' }], { isError: true })).isError).toBe(true);
  });

  it('gives the text of an embedded text resource', () => {
    const body = toToolResultBody(
      result([
        { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'file body' } },
      ]),
    );
    expect(body.content).toEqual([{ type: 'text', text: 'file body' }]);
  });

  it('describes a binary resource and audio instead of passing bytes the model cannot read', () => {
    const body = toToolResultBody(
      result([
        { type: 'resource', resource: { uri: 'file:///a.bin', mimeType: 'application/zip', blob: 'AAAA' } },
        { type: 'audio', mimeType: 'audio/wav', data: 'AAAAAAAA' },
      ]),
    );
    expect(body.content).toEqual([
      { type: 'text', text: '[binary resource file:///a.bin application/zip, 3 bytes, not shown]' },
      { type: 'text', text: '[audio audio/wav, 6 bytes, not shown]' },
    ]);
  });

  it('describes a resource link with its name, address and description', () => {
    const body = toToolResultBody(
      result([
        {
          type: 'resource_link',
          name: 'README',
          uri: 'file:///README.md',
          mimeType: 'text/markdown',
          description: 'the readme',
        },
      ]),
    );
    expect(body.content).toEqual([
      { type: 'text', text: '[resource link "README" file:///README.md (text/markdown): the readme]' },
    ]);
  });

  it('shows a content type it does not know as JSON rather than dropping it', () => {
    const future = { type: 'hologram', frames: 3 } as unknown as ContentBlock;
    expect(toToolResultBody(result([future])).content).toEqual([
      { type: 'text', text: '[unsupported content "hologram"] {"type":"hologram","frames":3}' },
    ]);
  });

  it('uses structuredContent only when there is no content', () => {
    expect(toToolResultBody(result([], { structuredContent: { sum: 3 } })).content).toEqual([
      { type: 'text', text: '{"sum":3}' },
    ]);
    expect(
      toToolResultBody(result([{ type: 'text', text: 'three' }], { structuredContent: { sum: 3 } })).content,
    ).toEqual([{ type: 'text', text: 'three' }]);
  });

  it('returns no blocks for an empty result', () => {
    expect(toToolResultBody(result([]))).toEqual({ content: [], isError: false });
  });
});
