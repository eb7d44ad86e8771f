/**
 * `/roots`: the folders servers may work in (MCP roots). `/roots add DIR` and `/roots remove DIR`
 * change them, and every running server is told.
 */
import { resolve } from 'node:path';
import { describeFailure } from '../exit-codes.js';
import { failed, show, type ChatCommand, type CommandContext, type CommandOutcome } from './command-table.js';

export const ROOTS_COMMANDS: readonly ChatCommand[] = [
  {
    name: '/roots',
    argument: '[add|remove DIR]',
    summary: 'the folders servers may work in; add or remove one (servers are told)',
    run: (argument, context) => roots(argument, context),
  },
];

/** What `/roots …` asks for: a tagged union, the list when there is no change. */
type RootsRequest =
  | { readonly kind: 'list' }
  | { readonly kind: 'change'; readonly action: 'add' | 'remove'; readonly folder: string }
  | { readonly kind: 'usage' };

function parseRootsArgument(argument: string): RootsRequest {
  if (argument === '') return { kind: 'list' };
  const match = /^(add|remove|rm)\s+(.+)$/i.exec(argument);
  if (match === null) return { kind: 'usage' };
  const action = (match[1] ?? '').toLowerCase() === 'add' ? 'add' : 'remove';
  return { kind: 'change', action, folder: (match[2] ?? '').trim() };
}

async function roots(argument: string, context: CommandContext): Promise<CommandOutcome> {
  const control = context.roots;
  if (control === undefined) return failed('No MCP servers in this chat.');
  const request = parseRootsArgument(argument);
  switch (request.kind) {
    case 'usage':
      return failed('Usage: /roots, /roots add DIR or /roots remove DIR');
    case 'change': {
      const current = control.list();
      const target = resolve(request.folder);
      if (request.action === 'remove' && !current.includes(target)) {
        return failed(`${request.folder} is not a root (/roots lists them)`);
      }
      const next =
        request.action === 'add' ? [...current, target] : current.filter((folder) => folder !== target);
      try {
        await control.set(next);
      } catch (failure) {
        return failed(describeFailure(failure, context.debug));
      }
      break;
    }
    case 'list':
      break;
    default: {
      const unexpected: never = request;
      throw new TypeError(`unknown /roots request ${JSON.stringify(unexpected)}`);
    }
  }
  const listed = control.list();
  const shared =
    listed.length === 0
      ? ['No shared roots: servers with no folders of their own have none to work in.']
      : ['Roots (the folders servers may work in):', ...listed.map((folder) => `  ${folder}`)];
  // Servers that keep folders of their own (server-filesystem's arguments, their "roots").
  const others = context
    .servers()
    .filter((server) => !control.followsShared(server.name))
    .map((server) => `  ${server.name}: ${control.describe(server.name)}`);
  return show(
    (others.length === 0 ? shared : [...shared, 'Servers with roots of their own:', ...others]).join('\n'),
  );
}
