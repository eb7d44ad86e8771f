/**
 * The size limit on one message from a server, and the error that ends a request whose answer is
 * over it.
 *
 * A message over the limit is dropped where it is read (our stdio transport, the HTTP fetch), and
 * the request it answers is ended at once with a JSON-RPC error made here, carrying the size and
 * the limit in its `data`. The SDK rejects that request with a `ProtocolError`, the rest of the
 * connection goes on, and the model reads one clear line instead of waiting out a timeout.
 */
import {
  ProtocolError,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/client';

/**
 * The largest message accepted from a server, in bytes: 10 MiB, the MCP SDK's own stdio buffer
 * limit (`STDIO_DEFAULT_MAX_BUFFER_SIZE`), applied to HTTP bodies too so both behave the same.
 */
export const DEFAULT_MAX_MESSAGE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

/** JSON-RPC's implementation-defined range; the marker in `data` is what we recognise. */
const MESSAGE_TOO_LARGE_CODE = -32_090;

/** What the made-up error carries. */
export interface Oversize {
  /** The message's size in bytes, or a lower bound when `atLeast`. */
  readonly bytes: number;
  readonly atLeast: boolean;
  readonly limitBytes: number;
}

interface OversizeData {
  readonly mcphostMessageTooLarge: Oversize;
}

/** The error response that ends request `id` because its answer was too large. */
export function oversizeResponse(id: RequestId, oversize: Oversize): JSONRPCErrorResponse {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: MESSAGE_TOO_LARGE_CODE,
      message: `the answer (${sizeText(oversize)}) is over the message size limit of ${bytesText(oversize.limitBytes)}`,
      data: { mcphostMessageTooLarge: oversize } satisfies OversizeData,
    },
  };
}

/** The oversize a request failed with, if that is why it failed. */
export function oversizeIn(error: unknown): Oversize | undefined {
  if (!(error instanceof ProtocolError)) return undefined;
  const data: unknown = error.data;
  if (typeof data !== 'object' || data === null || !('mcphostMessageTooLarge' in data)) return undefined;
  const oversize: unknown = data.mcphostMessageTooLarge;
  if (typeof oversize !== 'object' || oversize === null) return undefined;
  const { bytes, atLeast, limitBytes } = oversize as Partial<Oversize>;
  return typeof bytes === 'number' && typeof limitBytes === 'number'
    ? { bytes, atLeast: atLeast === true, limitBytes }
    : undefined;
}

/** `server "big" answered the call to "huge" with 52.4 MB, over the … limit of 10 MiB; …`. */
export function describeOversize(serverName: string, what: string, oversize: Oversize): string {
  return `server "${serverName}" answered ${what} with a message of ${sizeText(oversize)}, over the message size limit of ${bytesText(oversize.limitBytes)}; the answer was dropped`;
}

/** The JSON-RPC id of a request we sent, if it is one. */
export function requestIdOf(message: JSONRPCMessage): RequestId | undefined {
  return 'method' in message && 'id' in message ? message.id : undefined;
}

/**
 * The `id` of a response seen only by its two ends (it was too large to keep): serializers put it
 * first (`{"jsonrpc":"2.0","id":7,"result":…`) or last (`…,"jsonrpc":"2.0","id":7}`). A nested
 * `"id"` inside the result cannot match either pattern, which are anchored at the message's edges.
 */
export function responseIdAtEdges(head: string, tail: string): RequestId | undefined {
  const value = String.raw`("(?:[^"\\]|\\.)*"|-?\d+)`;
  const first = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${value}`).exec(
    head,
  );
  const last = new RegExp(String.raw`"id"\s*:\s*${value}\s*\}\s*$`).exec(tail);
  const raw = first?.[1] ?? last?.[1];
  if (raw === undefined) return undefined;
  const parsed: unknown = JSON.parse(raw);
  return typeof parsed === 'string' || typeof parsed === 'number' ? parsed : undefined;
}

function sizeText(oversize: Oversize): string {
  return `${oversize.atLeast ? 'more than ' : ''}${bytesText(oversize.bytes)}`;
}

/** `52.4 MB (52,428,912 bytes)`; the limit, a power of two, as `10 MiB (10,485,760 bytes)`. */
function bytesText(bytes: number): string {
  const grouped = bytes.toLocaleString('en-US');
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB (${grouped} bytes)`;
  return `${(bytes / 1_000_000).toFixed(1)} MB (${grouped} bytes)`;
}
