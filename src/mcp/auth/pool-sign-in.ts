/**
 * How the pool gives its remote servers mcphost's sign-in: the default `authProviderFor` (the
 * issue-13 provider factory) and the interactive sign-in step a connection runs when a server
 * needs one. A module of its own so that the pool loads it, and the SDK's OAuth code with it,
 * only when there are servers (as it does the connection class).
 */
import type { FetchLike, OAuthClientProvider } from '@modelcontextprotocol/client';
import type { QuestionQueue, UserQuestions } from '../../core/questions.js';
import { isRemoteServer, type ServerDefinition } from '../definition.js';
import { McpOAuthProvider } from './provider.js';
import { signIn as runSignIn } from './sign-in.js';
import type { SignInStore } from './token-store.js';
import { definedProperties } from '../../util/defined-properties.js';

/** How the pool signs in to remote servers. */
export interface PoolSignIn {
  /** Where tokens and registrations are kept. */
  readonly store: SignInStore;
  /** Asks the person (`signIn`); absent or without `signIn`, no one is asked. */
  readonly questions?: UserQuestions;
  readonly queue?: QuestionQueue;
}

/** What the pool hands over. */
export interface PoolAuthOptions {
  readonly servers: Readonly<Record<string, ServerDefinition>>;
  readonly signIn?: PoolSignIn;
  readonly authProviderFor?: (serverName: string) => OAuthClientProvider | undefined;
  readonly fetch?: FetchLike;
  readonly now?: () => number;
}

/** A remote server's OAuth, as its connection takes it. */
export interface ServerAuth {
  readonly authProvider?: OAuthClientProvider;
  /** Present only for mcphost's own provider with someone to ask. */
  readonly signIn?: (signal: AbortSignal, scope: string | undefined) => Promise<void>;
}

/**
 * The default `authProviderFor`: mcphost's OAuth provider for a remote server, unless sign-in is
 * off for it or it sends its own Authorization.
 */
function signInProviderFor(
  name: string,
  definition: ServerDefinition,
  options: PoolAuthOptions,
): McpOAuthProvider | undefined {
  const { signIn } = options;
  if (signIn === undefined || !isRemoteServer(definition) || definition.oauth === false) return undefined;
  if (Object.keys(definition.headers).some((header) => header.toLowerCase() === 'authorization'))
    return undefined;
  return new McpOAuthProvider({
    server: name,
    serverUrl: definition.url,
    settings: definition.oauth ?? { grant: 'authorization_code' },
    store: signIn.store,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
}

/** For each server name, its OAuth: the provider (the hook's, else mcphost's) and the sign-in step. */
export function serverAuthFor(options: PoolAuthOptions): (name: string) => ServerAuth {
  const { signIn } = options;
  const questions = signIn?.questions;
  return (name) => {
    const definition = options.servers[name];
    // Only remote servers sign in; stdio and built-in ones have no OAuth to speak of.
    if (definition === undefined || !isRemoteServer(definition)) return {};
    const authProvider = options.authProviderFor
      ? options.authProviderFor(name)
      : signInProviderFor(name, definition, options);
    if (authProvider === undefined) return {};
    // The sign-in step (the person asked, the redirect awaited) needs mcphost's own provider.
    if (!(authProvider instanceof McpOAuthProvider) || questions?.signIn === undefined)
      return { authProvider };
    return {
      authProvider,
      signIn: (signal, scope) =>
        runSignIn({
          provider: authProvider,
          ...definedProperties({ scope }),
          questions,
          ...(signIn?.queue ? { queue: signIn.queue } : {}),
          ...(options.fetch ? { fetch: options.fetch } : {}),
          signal,
        }).then(() => undefined),
    };
  };
}
