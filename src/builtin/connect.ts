/**
 * Starting a built-in server inside this process and handing back the client's end of an in-memory
 * transport, so the pool talks to it exactly as to any other server (same handshake, names,
 * approval rules, hooks and audit log).
 *
 * The server SDK and the server's own module (turndown for fetch, tinyglobby for fs) are imported
 * here, on first use: a run without built-in servers never loads them.
 */
import type { Transport } from '@modelcontextprotocol/client';
import type { McpServer } from '@modelcontextprotocol/server';
import { childEnvironment, type ParentEnvironment } from '../mcp/environment.js';
import type { BuiltinHost } from './host.js';
import type { BuiltinServerSettings } from './options.js';

/** What {@link connectBuiltin} needs. */
export interface ConnectBuiltinOptions {
  readonly settings: BuiltinServerSettings;
  /** Our environment; `bash` commands get the minimal part of it that stdio servers get. */
  readonly parentEnv: ParentEnvironment;
  /** The folder relative paths start from, and the default of `fs` and `bash`. Default `process.cwd()`. */
  readonly cwd?: string;
  /** Our version, told in `initialize` and sent as fetch's User-Agent. */
  readonly version: string;
  /** What the program lends the servers (an editor's files and terminal); its `cwd` wins over `cwd`. */
  readonly host?: BuiltinHost;
}

/** Starts the server and returns the transport to connect a Client to. */
export async function connectBuiltin(options: ConnectBuiltinOptions): Promise<Transport> {
  const { McpServer, InMemoryTransport } = await import('@modelcontextprotocol/server');
  const { settings } = options;
  const server = new McpServer({ name: `mcphost-${settings.name}`, version: options.version });
  const onClose = await registerTools(server, options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  server.server.onclose = () => {
    void onClose();
  };
  await server.connect(serverSide);
  return clientSide;
}

/** Registers the tools of the configured server; returns what to do when the server closes. */
async function registerTools(
  server: McpServer,
  options: ConnectBuiltinOptions,
): Promise<() => Promise<void>> {
  const { settings, host } = options;
  const cwd = host?.cwd ?? options.cwd ?? process.cwd();
  const nothing = (): Promise<void> => Promise.resolve();
  switch (settings.name) {
    case 'fs': {
      const { registerFsTools } = await import('./fs-server.js');
      await registerFsTools(server, {
        options: settings.options,
        cwd,
        ...(host?.files === undefined ? {} : { files: host.files }),
      });
      return nothing;
    }
    case 'bash': {
      const { registerBashTools } = await import('./bash-server.js');
      const env = childEnvironment(options.parentEnv, { env: {}, inheritEnv: false });
      return registerBashTools(server, {
        options: settings.options,
        cwd,
        env,
        ...(host?.terminal === undefined ? {} : { terminal: host.terminal }),
      });
    }
    case 'todo': {
      const { registerTodoTools } = await import('./todo-server.js');
      registerTodoTools(server, host?.onTodos);
      return nothing;
    }
    case 'fetch': {
      const { registerFetchTools } = await import('./fetch-server.js');
      registerFetchTools(server, { options: settings.options, userAgent: `mcphost/${options.version}` });
      return nothing;
    }
    default: {
      const unexpected: never = settings;
      return unexpected;
    }
  }
}
