/** mcphost's state and cache folders (src/util/user-folders.ts), as the XDG base directory spec reads. */
import { describe, expect, it } from 'vitest';
import { mcphostFolder } from '../../src/util/user-folders.js';

describe('mcphostFolder', () => {
  it('is under HOME by default: ~/.local/state and ~/.cache', () => {
    expect(mcphostFolder('state', '/home/ada', {})).toBe('/home/ada/.local/state/mcphost');
    expect(mcphostFolder('cache', '/home/ada', {})).toBe('/home/ada/.cache/mcphost');
  });

  it('follows XDG_STATE_HOME and XDG_CACHE_HOME, each for its own kind', () => {
    const env = { XDG_STATE_HOME: '/var/state', XDG_CACHE_HOME: '/var/cache' };
    expect(mcphostFolder('state', '/home/ada', env)).toBe('/var/state/mcphost');
    expect(mcphostFolder('cache', '/home/ada', env)).toBe('/var/cache/mcphost');
  });

  it.each(['', '   ', 'relative/state'])('ignores a variable that is empty or relative: %j', (value) => {
    expect(mcphostFolder('state', '/home/ada', { XDG_STATE_HOME: value })).toBe(
      '/home/ada/.local/state/mcphost',
    );
    expect(mcphostFolder('cache', '/home/ada', { XDG_CACHE_HOME: value })).toBe('/home/ada/.cache/mcphost');
  });
});
