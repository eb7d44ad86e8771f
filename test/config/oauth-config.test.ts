/** The `oauth` key of a remote server: our form, Claude Code's and gemini-cli's, and its errors. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../config/parse.js';
import { ConfigError } from '../../src/core/errors.js';

const env = { HOME: '/home/ada', LINEAR_SECRET: 'shh' };
const parse = (oauth: unknown) =>
  parseConfig(
    { mcpServers: { linear: { url: 'https://mcp.linear.app/mcp', oauth } } },
    '/home/ada/.mcp.json',
    env,
  ).servers.linear;

function problem(oauth: unknown): string {
  try {
    parse(oauth);
  } catch (error) {
    if (error instanceof ConfigError) return error.detail;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('oauth settings', () => {
  it('reads our form, expanding the secret', () => {
    expect(
      parse({
        clientId: 'mcphost-ci',
        clientSecret: '${LINEAR_SECRET}',
        scopes: ['read', 'write'],
        redirectPort: 8765,
        grant: 'client_credentials',
      }),
    ).toMatchObject({
      oauth: {
        grant: 'client_credentials',
        clientId: 'mcphost-ci',
        clientSecret: 'shh',
        scopes: ['read', 'write'],
        redirectPort: 8765,
      },
    });
  });

  it("reads Claude Code's form: callbackPort and scopes as one string", () => {
    expect(
      parse({
        clientId: 'abc',
        callbackPort: 8080,
        scopes: 'read  write',
        authServerMetadataUrl: 'https://x',
      }),
    ).toMatchObject({
      oauth: { grant: 'authorization_code', clientId: 'abc', redirectPort: 8080, scopes: ['read', 'write'] },
    });
  });

  it("turns sign-in off with false or gemini-cli's enabled: false", () => {
    expect(parse(false)).toMatchObject({ oauth: false });
    expect(parse({ enabled: false, clientId: 'x' })).toMatchObject({ oauth: false });
  });

  it('leaves oauth out when the entry has none (sign-in still happens when asked)', () => {
    expect(parse(undefined)).not.toHaveProperty('oauth');
  });

  it.each([
    [
      { grant: 'client_credentials', clientId: 'x' },
      'mcpServers.linear.oauth.grant: "client_credentials" needs "clientId" and "clientSecret"',
    ],
    [{ redirectPort: 70000 }, 'mcpServers.linear.oauth.redirectPort'],
    [{ clientSecret: '${MISSING_SECRET}' }, 'MISSING_SECRET'],
    [{ clientMetadataUrl: 'http://insecure.example/client.json' }, 'https'],
    [{ scopes: [] }, 'mcpServers.linear.oauth.scopes'],
    [{ redirectPort: 1, callbackPort: 2 }, 'differs from "redirectPort"'],
  ])('refuses %j with a line naming the key', (oauth, expected) => {
    expect(problem(oauth)).toContain(expected);
  });
});
