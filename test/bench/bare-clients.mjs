/* global process */
// The floor for starting MCP servers: a bare SDK client per server (no host), all in parallel,
// each connected and its tools listed, then closed. Usage: node bare-clients.mjs '<servers JSON>'
// where the JSON is a config's `mcpServers` object (command, args, env).
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const servers = Object.entries(JSON.parse(process.argv[2] ?? '{}'));
const clients = await Promise.all(
  servers.map(async ([name, server]) => {
    const client = new Client({ name: 'bare', version: '0' });
    await client.connect(
      new StdioClientTransport({
        command: server.command,
        args: server.args ?? [],
        env: { PATH: process.env.PATH ?? '', ...server.env },
        stderr: 'ignore',
      }),
    );
    const { tools } = await client.listTools();
    if (tools.length === 0) throw new Error(`${name}: no tools`);
    return client;
  }),
);
await Promise.all(clients.map((client) => client.close()));
process.stdout.write(`${clients.length} servers started\n`);
