/**
 * `mcphost models list|pull|rm` in the yargs command tree: parsing only. The handlers live in
 * src/cli/models-commands.ts, which `main` imports only when one runs.
 */
import type { Argv, CommandModule } from 'yargs';

/** `mcphost models …`: what is downloaded for `local:` (and, once wired, `ollama:`). */
export type ModelsCommand =
  | { readonly action: 'list'; readonly provider: string }
  /** `model` undefined: the default local model. */
  | { readonly action: 'pull'; readonly model: string | undefined }
  | { readonly action: 'rm'; readonly model: string };

/** The sub-commands, for typo suggestions and completion. */
export const MODELS_SUBCOMMANDS = ['list', 'pull', 'rm'] as const;

type Values = Readonly<Record<string, unknown>>;

function subcommand(parser: Argv, spec: string, describe: string, handler: (values: Values) => void): Argv {
  // One loose signature for every sub-command, as in args.ts: the values are checked here.
  return parser.command({ command: spec, describe, builder: (sub: Argv) => sub, handler } as CommandModule);
}

/** The `models` command's sub-commands; `choose` receives the one the command line names. */
export function modelsCommands(parser: Argv, choose: (command: ModelsCommand) => void): Argv {
  let tree = subcommand(
    parser,
    'list [provider]',
    'list downloaded models: name, file, size (provider: local)',
    (values) =>
      choose({ action: 'list', provider: typeof values.provider === 'string' ? values.provider : 'local' }),
  );
  tree = subcommand(
    tree,
    'pull [model]',
    'download a model now, with progress (default: the default local model)',
    (values) =>
      choose({ action: 'pull', model: typeof values.model === 'string' ? values.model : undefined }),
  );
  tree = subcommand(tree, 'rm <model>', 'delete a downloaded model', (values) =>
    choose({ action: 'rm', model: String(values.model) }),
  );
  return tree.demandCommand(1, 'models needs a command: list, pull or rm');
}
