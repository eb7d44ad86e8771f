/**
 * Libraries that print: the MCP client SDK writes to `console.debug` ("Client.listTools() called
 * but server does not advertise tools capability…") and `console.warn` ("[mcp-sdk] …") with no
 * option to give it a logger instead. In `-p` mode stdout must hold the answer alone, and the
 * chat's screen is ours too, so while mcphost runs the console's methods are pointed at the
 * `--debug` log (and dropped without `--debug`). mcphost's own output never uses `console`.
 */
import { format } from 'node:util';

/** The console methods a library may call to print. */
const CAPTURED = ['log', 'info', 'debug', 'warn', 'error', 'trace', 'dir'] as const;
type CapturedMethod = (typeof CAPTURED)[number];

/**
 * Sends every console call to `write` (one formatted message each) until the returned function
 * is called, which puts the original methods back.
 */
export function captureLibraryConsole(write: (message: string) => void): () => void {
  const saved = new Map<CapturedMethod, (...parts: unknown[]) => void>();
  const target = console as unknown as Record<CapturedMethod, (...parts: unknown[]) => void>;
  for (const method of CAPTURED) {
    saved.set(method, target[method]);
    target[method] = (...parts: unknown[]) => {
      write(format(...parts));
    };
  }
  return () => {
    for (const [method, original] of saved) target[method] = original;
  };
}
