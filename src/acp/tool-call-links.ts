/**
 * Links what the built-in servers do for the editor to the tool call that did it: a terminal
 * created for a `bash` command is embedded in that call, and a write of `fs` becomes its `diff`.
 * The servers run behind the MCP pool and do not know the model's call ids, so the link is made
 * by what the call asked for: the command line, or the path written.
 */
import type { ToolCallContent } from '@agentclientprotocol/sdk';
import type { ToolCallBlock } from '../core/types.js';
import type { FileWrite } from './editor-files.js';

/** The `fs` tools whose writes are shown as a diff. */
const WRITING_TOOLS: ReadonlySet<string> = new Set(['write_file', 'edit_file']);

interface RunningCall {
  readonly input: Readonly<Record<string, unknown>>;
  /** The server it went to, when known (an elicitation names it). */
  readonly server: string | undefined;
  terminalId?: string;
}

export class ToolCallLinks {
  readonly #running = new Map<string, RunningCall>();
  #writes: FileWrite[] = [];

  /** A call the model made (in call order). */
  started(call: ToolCallBlock, server: string | undefined): void {
    this.#running.set(call.id, { input: call.input, server });
  }

  /** A terminal runs `command`: the id of the running call that asked for it, if one did. */
  terminalStarted(command: string, terminalId: string): string | undefined {
    for (const [id, call] of this.#running) {
      if (call.terminalId === undefined && call.input.command === command) {
        call.terminalId = terminalId;
        return id;
      }
    }
    return undefined;
  }

  wrote(write: FileWrite): void {
    this.#writes.push(write);
  }

  /** The most recent running call to `server`, for an elicitation that server sends. */
  runningCallOf(server: string): string | undefined {
    let found: string | undefined;
    for (const [id, call] of this.#running) if (call.server === server) found = id;
    return found;
  }

  /** What the call's last update shows besides its result (its terminal, its diff); forgets the call. */
  finished(call: ToolCallBlock, tool: string | undefined): ToolCallContent[] {
    const running = this.#running.get(call.id);
    this.#running.delete(call.id);
    const content: ToolCallContent[] = [];
    if (running?.terminalId !== undefined) content.push({ type: 'terminal', terminalId: running.terminalId });
    const path = call.input.path;
    if (tool !== undefined && WRITING_TOOLS.has(tool) && typeof path === 'string') {
      const index = this.#writes.findIndex((write) => samePath(write.path, path));
      const write = index === -1 ? undefined : this.#writes.splice(index, 1)[0];
      if (write !== undefined) {
        content.push({ type: 'diff', path: write.path, oldText: write.oldText, newText: write.newText });
      }
    }
    return content;
  }

  /** A turn ended: writes no call claimed are not kept for the next one. */
  clear(): void {
    this.#running.clear();
    this.#writes = [];
  }
}

/** The absolute path written, and the path as the model gave it (absolute, or relative to the folder). */
function samePath(written: string, given: string): boolean {
  const trimmed = given.replace(/^\.\//, '');
  return written === given || written.endsWith(`/${trimmed}`);
}
