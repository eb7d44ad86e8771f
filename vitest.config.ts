import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration tests start real MCP servers (node processes); two cores, so keep it modest.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        // `npm run test:unit`: pure code, the provider mappers against loopback fakes, the config.
        // No MCP server is started and dist/ is not needed, so it runs without a build.
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/providers/**/*.test.ts', 'test/config/**/*.test.ts'],
        },
      },
      {
        extends: true,
        // Real MCP servers from npm and the built CLI end to end.
        test: { name: 'integration', include: ['test/mcp/**/*.test.ts', 'test/e2e/**/*.test.ts'] },
      },
    ],
  },
});
