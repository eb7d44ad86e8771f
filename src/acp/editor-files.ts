/**
 * The built-in `fs` server's text reads and writes in an editor session: through the editor
 * (`fs/read_text_file`, `fs/write_text_file`) where the client offers them, so that the model reads
 * unsaved buffers and a write lands in the editor; on the disk otherwise. Each write is told to
 * `onWrite` with the text before and after it, for the `diff` of its tool call.
 */
import type { AgentContext, ClientCapabilities } from '@agentclientprotocol/sdk';
import { readFile } from 'node:fs/promises';
import type { FileAccess } from '../builtin/host.js';
import { writeFileAtomic } from '../util/atomic-file.js';

/** A write of the built-in fs: its absolute path, the text before (null: a new file) and after. */
export interface FileWrite {
  readonly path: string;
  readonly oldText: string | null;
  readonly newText: string;
}

export interface EditorFilesParts {
  readonly client: AgentContext;
  readonly sessionId: string;
  readonly capabilities: ClientCapabilities;
  readonly onWrite: (write: FileWrite) => void;
}

export function editorFiles(parts: EditorFilesParts): FileAccess {
  const { client, sessionId } = parts;
  const readsThroughEditor = parts.capabilities.fs?.readTextFile === true;
  const writesThroughEditor = parts.capabilities.fs?.writeTextFile === true;
  const readText = async (path: string): Promise<string> =>
    readsThroughEditor
      ? (await client.request('fs/read_text_file', { sessionId, path })).content
      : readFile(path, 'utf8');
  return {
    readText,
    writeText: async (path, content, previous) => {
      // The text before, for the diff: a file that cannot be read is a new one.
      const oldText = previous ?? (await readText(path).catch(() => null));
      if (writesThroughEditor) await client.request('fs/write_text_file', { sessionId, path, content });
      // The model writes the user's files: they get the umask's permissions (as fs-server's own writes).
      else await writeFileAtomic(path, content, { newFile: 'umask' });
      parts.onWrite({ path, oldText, newText: content });
    },
  };
}
