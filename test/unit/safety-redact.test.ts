import { describe, expect, it } from 'vitest';
import { isSecretKey, REDACTED, redactSecrets, redactText } from '../../src/safety/redact.js';

describe('isSecretKey', () => {
  it.each([
    'token',
    'api_key',
    'apiKey',
    'API_KEY',
    'APIKEY',
    'x-api-key',
    'X-Api-Key',
    'secret',
    'clientSecret',
    'password',
    'db_password',
    'Authorization',
    'GITHUB_TOKEN',
    'accessToken',
    'private_key',
    'key',
    'Cookie',
  ])('%s is secret-looking', (name) => {
    expect(isSecretKey(name)).toBe(true);
  });

  it.each(['path', 'keyword', 'monkey', 'tokenizer', 'author', 'message', 'content', 'passage'])(
    '%s is not',
    (name) => {
      expect(isSecretKey(name)).toBe(false);
    },
  );
});

describe('redactSecrets', () => {
  it('replaces the values of secret-looking keys at any depth and keeps the rest', () => {
    const input = {
      path: '/tmp/notes.txt',
      api_key: 'abc123',
      headers: { Authorization: 'Bearer xyz', Accept: 'text/plain' },
      accounts: [{ user: 'ada', password: 'hunter2' }],
      credentials: { user: 'ada', pin: '1234' },
      max_tokens: 100,
      keep_token: false,
      nothing_key: null,
    };
    expect(redactSecrets(input)).toEqual({
      path: '/tmp/notes.txt',
      api_key: REDACTED,
      headers: { Authorization: REDACTED, Accept: 'text/plain' },
      accounts: [{ user: 'ada', password: REDACTED }],
      credentials: REDACTED,
      max_tokens: 100,
      keep_token: false,
      nothing_key: null,
    });
    // The input is left as it was.
    expect(input.api_key).toBe('abc123');
  });

  it('finds secrets inside string values too', () => {
    expect(
      redactSecrets({
        headers: ['Authorization: Bearer abcdefgh12345', 'Accept: */*'],
        note: 'use sk-abcdefghijklmnop1234',
      }),
    ).toEqual({ headers: [`Authorization: ${REDACTED}`, 'Accept: */*'], note: `use ${REDACTED}` });
  });

  it('keeps a key named __proto__ as data', () => {
    const parsed: unknown = JSON.parse('{"__proto__": {"token": "t"}, "a": 1}');
    const redacted = redactSecrets(parsed) as Record<string, unknown>;
    expect(Object.keys(redacted)).toEqual(['__proto__', 'a']);
    expect(JSON.stringify(redacted)).toBe(`{"__proto__":{"token":"${REDACTED}"},"a":1}`);
  });
});

describe('redactText', () => {
  it.each([
    ['GITHUB_TOKEN=ghp_abc123 started', `GITHUB_TOKEN=${REDACTED} started`],
    ['password: hunter2', `password: ${REDACTED}`],
    ['{"api_key": "abc", "path": "/x"}', `{"api_key": "${REDACTED}", "path": "/x"}`],
    ["secret='s3cr3t'", `secret='${REDACTED}'`],
    ['GET /x?token=abc&page=2', `GET /x?token=${REDACTED}&page=2`],
    ['Authorization: Bearer eyJhbGciOi.payload.sig', `Authorization: ${REDACTED}`],
    ['sending Bearer eyJhbGciOi.payload', `sending Bearer ${REDACTED}`],
    ['connect https://ada:hunter2@db.example.com/x', `connect https://ada:${REDACTED}@db.example.com/x`],
    ['key is AKIAABCDEFGHIJKLMNOP', `key is ${REDACTED}`],
    ['slack xoxb-1234567890-abcdef', `slack ${REDACTED}`],
    ['github_pat_11ABCDEFG0123456789abcdef', REDACTED],
    ['sk-ant-api03-abcdefghijklmnopqrstu', REDACTED],
    ['stderr: API_TOKEN=abc123 started', `stderr: API_TOKEN=${REDACTED} started`],
    ['url: https://x.example/?api_key=abc&b=1', `url: https://x.example/?api_key=${REDACTED}&b=1`],
    ['max_tokens=100 temperature=0.2', 'max_tokens=100 temperature=0.2'],
    ['the keyword=apple stays', 'the keyword=apple stays'],
    ['an ordinary line: nothing to hide', 'an ordinary line: nothing to hide'],
  ])('%s', (input, expected) => {
    expect(redactText(input)).toBe(expected);
  });
});
