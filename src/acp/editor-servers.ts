/**
 * The MCP servers an editor passes with `session/new` and `session/load`, as server definitions
 * the pool runs beside the configured ones (under the same safety rules). A stdio server gets the
 * minimal environment plus the variables the editor gives, as a configured one does.
 */
import type { McpServer } from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import type { ServerDefinition } from '../mcp/definition.js';

export function editorServers(servers: readonly McpServer[], cwd: string): Record<string, ServerDefinition> {
  const definitions: Record<string, ServerDefinition> = {};
  for (const server of servers) {
    if (server.name.trim() === '')
      throw RequestError.invalidParams(undefined, 'mcpServers: a server has no name');
    if (server.name in definitions) {
      throw RequestError.invalidParams(undefined, `mcpServers: the name "${server.name}" is used twice`);
    }
    definitions[server.name] = definitionOf(server, cwd);
  }
  return definitions;
}

function definitionOf(server: McpServer, cwd: string): ServerDefinition {
  if ('type' in server) {
    return {
      transport: server.type,
      url: server.url,
      headers: Object.fromEntries(server.headers.map((header) => [header.name, header.value])),
    };
  }
  return {
    transport: 'stdio',
    command: server.command,
    args: [...server.args],
    env: Object.fromEntries(server.env.map((variable) => [variable.name, variable.value])),
    cwd,
    inheritEnv: false,
  };
}
