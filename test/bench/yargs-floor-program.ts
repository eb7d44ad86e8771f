/**
 * The floor `mcphost --help` is measured against (issue 27, as the owner decided): a yargs program
 * with mcphost's flags and top-level commands and nothing else, bundled and minified as the
 * executable is (yargs-floor.ts builds it). What `mcphost --help` takes over this is ours.
 */
import yargs from 'yargs';
import { CHAT_FLAGS } from '../../src/cli/command-line/flags.js';

/** mcphost's top-level commands, each with a description of about the same length as ours. */
const COMMANDS = [
  'script <file>',
  'mcp',
  'auth',
  'models',
  'agents',
  'batch <file>',
  'jobs',
  'worker',
  'completion [shell]',
  'acp',
];

let parser = yargs().scriptName('mcphost').exitProcess(false);
parser = parser.command('$0', 'chat, or one answer with -p', (chat) => {
  for (const flag of CHAT_FLAGS) {
    chat.option(flag.name, {
      describe: flag.describe,
      type: flag.kind === 'boolean' ? 'boolean' : 'string',
      ...(flag.kind === 'strings' ? { array: true } : {}),
      ...(flag.short === undefined ? {} : { alias: flag.short }),
    });
  }
  return chat;
});
for (const name of COMMANDS) {
  parser = parser.command(
    name,
    `the ${name.split(' ')[0]} command of mcphost, described in a line`,
    (sub) => sub,
  );
}
let printed = '';
void parser.parse(process.argv.slice(2), {}, (_error: unknown, _values: unknown, output: string) => {
  printed = output;
});
process.stdout.write(`${printed}\n`);
