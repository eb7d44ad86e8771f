/**
 * `mcphost auth login|status|logout` in the yargs command tree: parsing only. The handlers live in
 * src/cli/command-line/auth-commands.ts, which `main` imports (with the sign-in code) only when one runs.
 */
import type { Argv, CommandModule } from 'yargs';

/** `mcphost auth …`: sign in to a remote server, list sign-ins, or sign out. */
export type AuthCommand =
  | { readonly action: 'login'; readonly server: string }
  | { readonly action: 'status' }
  | { readonly action: 'logout'; readonly server: string };

/** The sub-commands, for typo suggestions and completion. */
export const AUTH_SUBCOMMANDS = ['login', 'status', 'logout'] as const;

type Values = Readonly<Record<string, unknown>>;

function subcommand(parser: Argv, spec: string, describe: string, handler: (values: Values) => void): Argv {
  // One loose signature for every sub-command, as in args.ts: the values are checked here.
  return parser.command({ command: spec, describe, builder: (sub: Argv) => sub, handler } as CommandModule);
}

/** The `auth` command's sub-commands; `choose` receives the one the command line names. */
export function authCommands(parser: Argv, choose: (command: AuthCommand) => void): Argv {
  let tree: Argv = parser.option('config', {
    type: 'string',
    describe: 'read the servers from this config file instead',
  });
  tree = subcommand(tree, 'login <server>', 'sign in to a remote server in the browser', (values) =>
    choose({ action: 'login', server: String(values.server) }),
  );
  tree = subcommand(tree, 'status', 'list remote servers and their sign-in state (never a token)', () =>
    choose({ action: 'status' }),
  );
  tree = subcommand(
    tree,
    'logout <server>',
    'sign out: revoke the tokens where the server allows it, and forget them',
    (values) => choose({ action: 'logout', server: String(values.server) }),
  );
  return tree.demandCommand(1, 'auth needs a command: login, status or logout');
}
