/** The text of `/tools`, `/servers`, `/history` and `/usage`. Pure functions of what they list. */
import type { ContextUsage } from '../../context/context-budget.js';
import { formatTokens, toolModeNotice } from '../output/text.js';
import type { ToolMode } from '../../context/tool-catalog.js';
import type { ToolDescription } from '../../mcp/pool.js';
import type { ServerState, ServerStatus } from '../../mcp/status.js';
import type { AgentRun } from '../../agents/child-run.js';
import type { Message } from '../../core/types.js';
import { argumentsText, previewResult } from '../activity.js';
import { agentRunLines } from './agent-transcript.js';
import { oneLine, shorten } from './sanitize.js';
import type { Style } from './style.js';
import { formatCount, type UsageTotals } from './usage.js';

/**
 * Tools grouped by server, each with the first line of its description; first, when the model gets
 * the tool search instead of these definitions, the line that says so (`mode`).
 */
export function listTools(
  tools: readonly ToolDescription[],
  style: Style,
  columns: number,
  mode?: ToolMode,
): string {
  if (tools.length === 0) return 'No tools: no MCP server is running (see /servers).';
  const searchLine = mode?.kind === 'search' ? `${style.yellow(toolModeNotice(mode))}\n\n` : '';
  // Map.groupBy needs Node 21; we run on 20.
  const byServer = new Map<string, ToolDescription[]>();
  for (const tool of tools) byServer.set(tool.server, [...(byServer.get(tool.server) ?? []), tool]);
  const width = Math.min(32, Math.max(...tools.map((tool) => oneLine(tool.tool).length)));
  const sections = [...byServer].map(([server, serverTools]) => {
    const count = `${serverTools.length} ${serverTools.length === 1 ? 'tool' : 'tools'}`;
    const lines = serverTools.map((tool) => {
      const name = oneLine(tool.tool);
      // The model knows the tool by its exposed name; say it when it is not plainly server__tool.
      const alias = tool.exposedName === `${tool.server}__${tool.tool}` ? '' : ` (as ${tool.exposedName})`;
      const room = Math.max(20, columns - 4 - Math.max(width, name.length) - alias.length);
      const description = shorten(oneLine(tool.description.split('\n')[0] ?? ''), room);
      return `  ${style.cyan(name.padEnd(width))}${style.dim(alias)}  ${description}`.trimEnd();
    });
    return [`${style.bold(oneLine(server))} ${style.dim(`(${count})`)}`, ...lines].join('\n');
  });
  return searchLine + sections.join('\n\n');
}

/** Each configured server: state, tool count, process, roots (when `rootsOf` says), last error. */
export function listServers(
  servers: readonly ServerStatus[],
  style: Style,
  columns: number,
  rootsOf: (server: string) => string | undefined = () => undefined,
): string {
  if (servers.length === 0) {
    return 'No MCP servers are configured (~/.mcp.json, or --config FILE). `--builtin fs,todo,bash,fetch` turns on the built-in ones.';
  }
  const width = Math.max(...servers.map((server) => oneLine(server.name).length));
  return servers
    .map((server) => {
      const tools = `${server.toolCount} ${server.toolCount === 1 ? 'tool' : 'tools'}`;
      const details = [server.transport, server.pid === undefined ? '' : `pid ${server.pid}`];
      if (server.restarts > 0) details.push(`restarted ${server.restarts}×`);
      const head = `  ${oneLine(server.name).padEnd(width)}  ${paintState(server.state, style)}  ${tools.padEnd(9)} ${style.dim(details.filter(Boolean).join(', '))}`;
      const roots = rootsOf(server.name);
      const lines = [head];
      if (roots !== undefined)
        lines.push(`    ${style.dim(`roots: ${shorten(oneLine(roots), Math.max(20, columns - 11))}`)}`);
      if (server.lastError !== undefined) {
        const error = shorten(oneLine(server.lastError), Math.max(20, columns - 6));
        lines.push(`    ${style.red(`last error: ${error}`)}`);
      }
      return lines.join('\n');
    })
    .join('\n');
}

function paintState(state: ServerState, style: Style): string {
  const text = state.padEnd(8);
  switch (state) {
    case 'ready':
      return style.green(text);
    case 'starting':
    case 'down':
      return style.yellow(text);
    case 'failed':
      return style.red(text);
    case 'closed':
      return style.dim(text);
    default: {
      const unexpected: never = state;
      return String(unexpected);
    }
  }
}

/**
 * The conversation, one line per part, cut to the width; under an agent call, what the agent did
 * (from `agentRuns`, the conversation's subagent runs), indented as the chat showed it live.
 */
export function listHistory(
  history: readonly Message[],
  style: Style,
  columns: number,
  agentRuns: readonly AgentRun[] = [],
): string {
  if (history.length === 0) return 'The conversation is empty.';
  const room = Math.max(20, columns - 14);
  const lines: string[] = [];
  for (const message of history) {
    const who = message.role === 'user' ? 'you' : message.role === 'assistant' ? 'assistant' : 'tool';
    const label = style.bold(who.padEnd(10));
    for (const block of message.content) {
      switch (block.type) {
        case 'text':
          lines.push(`${label}${shorten(oneLine(block.text), room)}`);
          break;
        case 'image':
          lines.push(`${label}${style.dim(`[image ${block.mimeType}]`)}`);
          break;
        case 'tool-call':
          lines.push(
            `${label}${style.cyan('→')} ${shorten(`${oneLine(block.name)} ${argumentsText(block)}`, room - 2)}`,
          );
          // The main run's children only: a grandchild's call id is one of its parent's transcript.
          for (const run of agentRuns.filter((each) => each.depth === 1 && each.toolCallId === block.id)) {
            for (const line of agentRunLines(run)) lines.push(`${' '.repeat(12)}${shorten(line, room - 2)}`);
          }
          break;
        case 'tool-result': {
          const first = previewResult(block, 1).lines[0] ?? '(empty)';
          const marker = block.isError ? style.red('✗') : style.green('←');
          lines.push(`${label}${marker} ${shorten(first, room - 2)}`);
          break;
        }
        default: {
          const unexpected: never = block;
          throw new TypeError(`unknown block ${JSON.stringify(unexpected)}`);
        }
      }
    }
  }
  return lines.join('\n');
}

/** Tokens this session, from what the providers reported. */
/** `42% of 128k context`, for the line after each turn and `/usage`. */
export function contextLine(context: ContextUsage): string {
  const percent = Math.min(999, Math.round(context.fraction * 100));
  return `${percent}% of ${formatTokens(context.window.tokens)} context`;
}

export function showUsage(
  usage: UsageTotals,
  modelString: string,
  style: Style,
  context?: ContextUsage,
): string {
  const turns = `${usage.turns} ${usage.turns === 1 ? 'turn' : 'turns'}, ${usage.modelCalls} model ${usage.modelCalls === 1 ? 'call' : 'calls'}`;
  const tokens = usage.reported
    ? `${formatCount(usage.inputTokens)} in · ${formatCount(usage.outputTokens)} out`
    : usage.modelCalls === 0
      ? 'no tokens yet'
      : 'the provider did not report token counts';
  const lines = [`This session: ${turns}`, `Tokens: ${style.bold(tokens)}`, `Model: ${modelString}`];
  if (context !== undefined) {
    const figure = `${formatCount(context.tokens)} tokens, ${contextLine(context)}`;
    lines.push(`Context: ${figure} (window from ${context.window.source})`);
  }
  return lines.join('\n');
}
