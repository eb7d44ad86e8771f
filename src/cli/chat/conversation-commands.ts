/**
 * The chat's commands about the conversation as a whole: `/model` (switch model, keeping it),
 * `/save FILE` (a copy) and `/resume [N|ID]` (take up another saved conversation of this folder).
 */
import { ConfigError } from '../../core/errors.js';
import { describeFailure } from '../exit-codes.js';
import {
  continuingNotice,
  conversationList,
  findConversation,
  type ConversationSummary,
} from '../sessions/saved-conversations.js';
import { failed, show, type ChatCommand, type CommandContext, type CommandOutcome } from './command-table.js';

export const CONVERSATION_COMMANDS: readonly ChatCommand[] = [
  {
    name: '/model',
    argument: 'provider:model',
    summary: 'switch model, keeping the conversation',
    run: (modelString, context) => switchModel(modelString, context),
  },
  {
    name: '/save',
    argument: 'FILE',
    summary: 'save a copy of the conversation to a file',
    run: (path, context) => save(path, context),
  },
  {
    name: '/resume',
    argument: '[N|ID]',
    summary: "take up a saved conversation of this folder (lists them; -c/--resume's list)",
    run: (chosen, context) => resume(chosen, context),
  },
];

async function switchModel(modelString: string, context: CommandContext): Promise<CommandOutcome> {
  if (modelString === '') {
    return show(
      `Model: ${context.modelString()}. Switch with /model provider:model (e.g. /model ollama:qwen2.5:3b).`,
    );
  }
  try {
    await context.switchModel(modelString);
  } catch (failure) {
    return failed(`${describeFailure(failure, context.debug)} (still using ${context.modelString()})`);
  }
  return show(`Now using ${context.modelString()}; the conversation goes on.`);
}

async function save(path: string, context: CommandContext): Promise<CommandOutcome> {
  if (path === '') return failed('Usage: /save FILE');
  try {
    const written = await context.saveConversation(path);
    return show(`Saved the conversation (${context.runner.history.length} messages) to ${written}.`);
  } catch (failure) {
    return failed(`Could not save: ${describeFailure(failure, context.debug)}`);
  }
}

/**
 * `/resume` lists this folder's conversations (as `--resume` without an id does) and asks which;
 * `/resume 2` or `/resume ID` (or the start of one) takes one up at once.
 */
async function resume(chosen: string, context: CommandContext): Promise<CommandOutcome> {
  const saved = context.savedConversations;
  if (saved === undefined) return failed('No saved conversations here.');
  try {
    const summaries = await saved.list();
    if (summaries.length === 0) return failed('No saved conversation for this folder yet.');
    let answer = chosen;
    if (answer === '') {
      const list = conversationList(summaries, context.columns()).trimEnd();
      if (context.ask === undefined) return show(`${list}\nTake one up with /resume N or /resume ID.`);
      answer = (await context.ask(`${list}\nresume which (1-${summaries.length}, Enter for none)? `)).trim();
      if (answer === '') return show('Nothing chosen; the conversation goes on.');
    }
    const summary = pick(summaries, answer);
    if (typeof summary === 'string') return failed(`Could not resume: ${summary}`);
    const messages = await saved.takeUp(summary.path);
    const [head = '', ...exchange] = continuingNotice(
      summary.id,
      { messages, agentRuns: context.agentRuns?.() },
      context.columns(),
    );
    return show([head, ...exchange.map((line) => `  ${line}`)].join('\n'));
  } catch (failure) {
    return failed(`Could not resume: ${describeFailure(failure, context.debug)}`);
  }
}

/** A number from the list, or an id (or the start of one); else what is wrong, in words. */
function pick(summaries: readonly ConversationSummary[], answer: string): ConversationSummary | string {
  if (/^[0-9]+$/.test(answer)) {
    return (
      summaries[Number(answer) - 1] ??
      `there is no conversation ${answer}: give 1-${summaries.length} or an id`
    );
  }
  try {
    return findConversation(summaries, answer);
  } catch (failure) {
    // findConversation speaks of `--resume`; here the words alone say it.
    return failure instanceof ConfigError
      ? failure.detail.replace('mcphost --resume', '/resume')
      : String(failure);
  }
}
