/**
 * Catching the answer `resultType: "task"` to a `tools/call`.
 *
 * The v2 client SDK (2.4) decodes every result itself and rejects `resultType: "task"` as an
 * unsupported result type, keeping nothing of it — not even the task id — and it offers no hook
 * for result types of extensions (only `input_required` has one). So we watch the transport: a
 * response to one of our `tools/call` requests that carries a task handle is turned, before the
 * SDK sees it, into a JSON-RPC error whose `data` is the handle. The call then rejects with that
 * error, and {@link taskHandleIn} recognises it by identity (a server cannot forge the object).
 * Only `tools/call` is watched: a task answering any other request stays the invalid answer the
 * spec says it is.
 */
import { ProtocolError, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';

/** The error code the handle travels under inside this process (never sent anywhere). */
const TASK_HANDLE_CODE = -32_099;

/** The `data` objects this module made, so that no server-sent error passes for a handle. */
const handles = new WeakSet<object>();

interface HandleData {
  readonly task: unknown;
}

/**
 * Starts watching `transport` (already connected: the SDK has set its `onmessage`). Idempotent
 * per transport.
 */
export function watchTaskHandles(transport: Transport): void {
  const watched = transport as Transport & { [WATCHED]?: true };
  if (watched[WATCHED] === true) return;
  watched[WATCHED] = true;
  const toolCalls = new Set<string | number>();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ('method' in message && message.method === 'tools/call' && 'id' in message) toolCalls.add(message.id);
    return send(message, options);
  };
  const deliver = transport.onmessage;
  if (deliver === undefined) return;
  transport.onmessage = (message, extra) => {
    deliver(asHandleError(message, toolCalls), extra);
  };
}

const WATCHED = Symbol('mcphost.watchTaskHandles');

function asHandleError(message: JSONRPCMessage, toolCalls: Set<string | number>): JSONRPCMessage {
  if (!('id' in message) || message.id === undefined || !toolCalls.has(message.id)) return message;
  if ('method' in message) return message;
  toolCalls.delete(message.id);
  if (!('result' in message)) return message;
  const result: unknown = message.result;
  if (
    typeof result !== 'object' ||
    result === null ||
    (result as { resultType?: unknown }).resultType !== 'task'
  ) {
    return message;
  }
  const data: HandleData = { task: result };
  handles.add(data);
  return {
    jsonrpc: '2.0',
    id: message.id,
    error: { code: TASK_HANDLE_CODE, message: 'the call became a task', data },
  };
}

/** The raw task handle a tool call was answered with, when `error` is one. */
export function taskHandleIn(error: unknown): unknown {
  if (!(error instanceof ProtocolError) || error.code !== TASK_HANDLE_CODE) return undefined;
  const data: unknown = error.data;
  if (typeof data !== 'object' || data === null || !handles.has(data)) return undefined;
  return (data as HandleData).task;
}

/** The server's -32021 (Missing Required Client Capability) naming the tasks extension. */
export function requiresTasks(error: unknown, extension: string): boolean {
  if (!(error instanceof ProtocolError) || error.code !== -32_021) return false;
  const data: unknown = error.data;
  if (typeof data !== 'object' || data === null) return true;
  const required = (data as { requiredCapabilities?: { extensions?: Record<string, unknown> } })
    .requiredCapabilities;
  return required?.extensions === undefined || Object.hasOwn(required.extensions, extension);
}
