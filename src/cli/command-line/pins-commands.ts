/**
 * `mcphost mcp pins` and `mcphost mcp pins reset [SERVER [TOOL]]`: the pinned tool definitions in
 * the state folder (src/safety/tool-pins.ts). Reading and resetting pins starts no server. A reset
 * pin is taken again from the definition the server offers on its next run.
 */
import { ConfigError } from '../../core/errors.js';
import { stripControlCharacters } from '../../safety/output-limits.js';
import { defaultToolPinsPath, ToolPinStore, type ListedToolPin } from '../../safety/tool-pin-store.js';
import { shortHash } from '../../safety/tool-pins.js';
import type { McpCommand } from '../args.js';
import { ExitCode, type ExitCodeValue } from '../exit-codes.js';
import type { CliIO } from '../io.js';
import { definedProperties } from '../../util/defined-properties.js';

export async function runPinsCommand(
  command: Extract<McpCommand, { action: 'pins' | 'pins-reset' }>,
  io: CliIO,
): Promise<ExitCodeValue> {
  const file = defaultToolPinsPath(io.homeDir, io.env);
  const store = new ToolPinStore(file);
  switch (command.action) {
    case 'pins':
      io.stdout.write(listing(file, await store.list()));
      return ExitCode.ok;
    case 'pins-reset': {
      const { server, tool } = command;
      if (server !== undefined) checkExists(await store.list(), server, tool, file);
      const removed = await store.reset(definedProperties({ server, tool }));
      const what =
        tool !== undefined
          ? `tool "${tool}" of server "${server}"`
          : server !== undefined
            ? `server "${server}"`
            : 'every server';
      io.stdout.write(
        `reset ${removed.length} pin${removed.length === 1 ? '' : 's'} (${clean(what)}); ` +
          'the next run pins the definitions the servers offer then\n',
      );
      return ExitCode.ok;
    }
  }
}

/**
 * The pins as a table: server, tool, short hash, when pinned, and which server it is (pins are
 * kept by its command line or URL: two projects' servers of one name have pins of their own).
 */
function listing(file: string, pins: readonly ListedToolPin[]): string {
  if (pins.length === 0) return `no pinned tools (${file})\n`;
  const rows = pins.map(({ identity, server, tool, pin }) => [
    clean(server),
    clean(tool),
    shortHash(pin.hash),
    pin.pinnedAt.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC'),
    // A pin an older mcphost kept by name goes to the first server of that name checked.
    clean(identity ?? '(by name, from an older mcphost)'),
  ]);
  const header = ['SERVER', 'TOOL', 'HASH', 'PINNED', 'STARTED AS'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    `  ${cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd()}\n`;
  return `${file}\n${line(header)}${rows.map(line).join('')}`;
}

/** A server or tool that has no pin is an error that names it and what is pinned instead. */
function checkExists(
  pins: readonly ListedToolPin[],
  server: string,
  tool: string | undefined,
  file: string,
): void {
  const servers = [...new Set(pins.map((entry) => entry.server))];
  if (!servers.includes(server)) {
    const known = servers.length === 0 ? 'no server has pins' : `pinned servers: ${servers.join(', ')}`;
    throw new ConfigError('mcp pins reset', clean(`no pins for server "${server}" (${known}; ${file})`));
  }
  if (tool === undefined) return;
  const tools = [...new Set(pins.filter((entry) => entry.server === server).map((entry) => entry.tool))];
  if (!tools.includes(tool)) {
    throw new ConfigError(
      'mcp pins reset',
      clean(`server "${server}" has no pin for tool "${tool}" (its pinned tools: ${tools.join(', ')})`),
    );
  }
}

/** Names come from servers and the command line: no control characters reach the terminal. */
function clean(text: string): string {
  return stripControlCharacters(text);
}
