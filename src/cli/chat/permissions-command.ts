/**
 * `/permissions`: the "always allow" answers kept for this project folder (answered `tk` or `sk`
 * at an approval question), and `/permissions remove N|all` to take them back.
 */
import type { KeptPermission } from '../../safety/kept-permissions.js';
import { describeFailure } from '../exit-codes.js';
import { failed, show, type ChatCommand, type CommandContext, type CommandOutcome } from './command-table.js';

export const PERMISSIONS_COMMANDS: readonly ChatCommand[] = [
  {
    name: '/permissions',
    argument: '[remove N|all]',
    summary: '"always allow" answers kept for this folder; remove one or all',
    run: (argument, context) => permissions(argument, context),
  },
];

async function permissions(argument: string, context: CommandContext): Promise<CommandOutcome> {
  const kept = context.permissions;
  if (kept === undefined) return failed('No kept permissions here.');
  const words = argument.split(/\s+/).filter((word) => word !== '');
  if (words.length === 0) return show(listKept(kept.list(), kept.project, context));
  const [verb, which] = words;
  if (verb !== 'remove' || which === undefined || words.length > 2) {
    return failed('Usage: /permissions, or /permissions remove N, or /permissions remove all');
  }
  if (which !== 'all' && !/^[0-9]+$/.test(which)) {
    return failed(`/permissions remove: "${which}" is not a number from the list, nor "all"`);
  }
  try {
    const removed = await kept.remove(which === 'all' ? 'all' : { index: Number(which) - 1 });
    return show(
      `Removed ${removed} kept ${removed === 1 ? 'permission' : 'permissions'} for ${kept.project}.`,
    );
  } catch (failure) {
    return failed(
      `/permissions remove: ${failure instanceof RangeError ? failure.message : describeFailure(failure, context.debug)}`,
    );
  }
}

function listKept(list: readonly KeptPermission[], project: string, context: CommandContext): string {
  if (list.length === 0) {
    return `No "always allow" answer is kept for ${project}. Answer tk or sk at an approval question to keep one.`;
  }
  const { style } = context;
  const lines = list.map((kept, index) => {
    const what = kept.kind === 'server' ? `every tool of ${kept.server}` : `${kept.tool} of ${kept.server}`;
    return `  ${String(index + 1).padStart(2)}. ${style.cyan(what)}  ${style.dim(`kept ${kept.keptAt.slice(0, 16).replace('T', ' ')}`)}`;
  });
  return [
    `Kept for ${project} (a deny rule still wins; bash still asks):`,
    ...lines,
    'Remove with /permissions remove N, or /permissions remove all.',
  ].join('\n');
}
