/** What a start failure behind npx adds to its line (src/mcp/npx-advice.ts). */
import { describe, expect, it } from 'vitest';
import { npxAdvice } from '../../src/mcp/npx-advice.js';

const CUT_SHORT =
  "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /home/a/.npm/_npx/a3241bba59c344f5/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js";

describe('npx advice', () => {
  it("names the folder of npx's copy that lacks a dependency, whatever the command", () => {
    for (const command of ['npx', '/usr/bin/npx', 'node']) {
      expect(
        npxAdvice({ command, stderr: ['node:internal/modules/esm/resolve:873', CUT_SHORT], timedOut: false }),
      ).toBe(
        "npx's copy of the package in /home/a/.npm/_npx/a3241bba59c344f5 is incomplete (an earlier install was cut short?): delete that folder and start again",
      );
    }
  });

  it('says npx may still be downloading when a start behind npx timed out, and only then', () => {
    const advice =
      'npx may still have been downloading the package: run the command once by hand, or raise the server\'s "initTimeout" (ms)';
    expect(npxAdvice({ command: '/usr/local/bin/npx', stderr: [], timedOut: true })).toBe(advice);
    expect(npxAdvice({ command: 'C:\\Program Files\\nodejs\\npx.cmd', stderr: [], timedOut: true })).toBe(
      advice,
    );
    expect(npxAdvice({ command: 'npx', stderr: [], timedOut: false })).toBeUndefined();
    expect(npxAdvice({ command: 'uvx', stderr: [], timedOut: true })).toBeUndefined();
    // Another package missing, outside npx's folder: not npx's doing.
    expect(
      npxAdvice({
        command: 'node',
        stderr: [
          "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /srv/server/index.js",
        ],
        timedOut: false,
      }),
    ).toBeUndefined();
  });
});
