/**
 * Maps what an MCP tool returns to the blocks every provider understands (text and images).
 *
 * Anything a model cannot take directly (audio, binary resources, links, content types newer than
 * this code) becomes a short readable text, so the model at least knows what it got.
 */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/client';
import type { ImageBlock, TextBlock, ToolResultOrigin } from '../core/types.js';

/** The body of a tool result: what the model reads, and whether the call failed. */
export interface ToolResultBody {
  readonly content: ReadonlyArray<TextBlock | ImageBlock>;
  readonly isError: boolean;
  /** Who wrote `content` ({@link ToolResultOrigin}). Absent: the server. */
  readonly origin?: ToolResultOrigin;
  /** The server's `structuredContent`, as it sent it (for MCP Apps; the model reads `content`). */
  readonly structuredContent?: Readonly<Record<string, unknown>>;
}

/** Maps a `tools/call` result. `structuredContent` is used only when `content` is empty. */
export function toToolResultBody(result: CallToolResult): ToolResultBody {
  const content: Array<TextBlock | ImageBlock> = result.content.map((block) => toBlock(block));
  if (content.length === 0 && result.structuredContent !== undefined) {
    content.push(text(stringify(result.structuredContent)));
  }
  const structured = result.structuredContent;
  return {
    content,
    isError: result.isError === true,
    ...(typeof structured === 'object' && structured !== null && !Array.isArray(structured)
      ? { structuredContent: structured as Readonly<Record<string, unknown>> }
      : {}),
  };
}

/** Maps one MCP content block. */
export function toBlock(block: ContentBlock): TextBlock | ImageBlock {
  switch (block.type) {
    case 'text':
      return text(block.text);
    case 'image':
      return { type: 'image', mimeType: block.mimeType, data: block.data };
    case 'audio':
      return text(`[audio ${block.mimeType}, ${describeSize(block.data)}, not shown]`);
    case 'resource': {
      const resource = block.resource;
      if ('text' in resource) return text(resource.text);
      const mimeType = resource.mimeType === undefined ? '' : ` ${resource.mimeType}`;
      return text(`[binary resource ${resource.uri}${mimeType}, ${describeSize(resource.blob)}, not shown]`);
    }
    case 'resource_link': {
      const mimeType = block.mimeType === undefined ? '' : ` (${block.mimeType})`;
      const description = block.description === undefined ? '' : `: ${block.description}`;
      return text(`[resource link "${block.name}" ${block.uri}${mimeType}${description}]`);
    }
    default:
      return unknownBlock(block);
  }
}

/**
 * The SDK validates results against the content types it knows, but a newer server (or a newer
 * SDK) may send one this code has never seen: show it as JSON rather than drop it.
 */
function unknownBlock(block: never): TextBlock {
  const value: unknown = block;
  const type = typeof value === 'object' && value !== null && 'type' in value ? String(value.type) : '?';
  return text(`[unsupported content "${type}"] ${stringify(value)}`);
}

function text(value: string): TextBlock {
  return { type: 'text', text: value };
}

function stringify(value: unknown): string {
  try {
    // JSON.stringify gives undefined (despite its type) for undefined and functions.
    const json = JSON.stringify(value) as string | undefined;
    return json ?? String(value);
  } catch {
    return String(value);
  }
}

/** Approximate decoded size of base64 data, for a human. */
function describeSize(base64: string): string {
  const bytes = Math.floor((base64.replace(/=+$/, '').length * 3) / 4);
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
