/**
 * No orphans, whatever ends mcphost: each child we start (a stdio server, a `bash` command) is
 * started through a small POSIX `sh` that watches mcphost from inside the child's process group.
 *
 *   sh -c '(read _ <&3; kill -KILL 0) </dev/null >/dev/null 2>&1 & exec "$@" 3<&-' … COMMAND ARGS…
 *
 * mcphost holds the other end of the pipe on fd 3. The watcher (a subshell, one `read` that never
 * gets a line) wakes when that pipe reaches its end, which the kernel makes happen when mcphost's
 * last copy closes, however it ended: exit, crash, SIGKILL. It then sends SIGKILL to its process
 * group, which is the child's: the `exec`ed command, and whatever it started that stayed in the
 * group (`npx` and `sh -c` wrappers, their children and grandchildren). The command itself runs
 * with fd 3 closed and keeps the pid of the spawned process, so the caller sees it as before.
 *
 * Why this and not a parent-death signal: `setpriv --pdeathsig KILL` reaches only the direct
 * child (a wrapper's children live on), and a signal asked for after mcphost already died never
 * comes; a pipe created before the fork cannot miss mcphost's end. And it needs only `/bin/sh`, so
 * it works for any user, on Linux and macOS alike. What it cannot reach: a process that leaves the
 * group (`setsid`, a daemon). The sandbox (sandbox.ts) reaches those too: its pid namespace ends
 * with bwrap, which this watcher ends.
 *
 * When mcphost closes a server itself, its SIGTERM to the group ends the watcher too (it traps
 * nothing), so the group empties as before.
 */

/** The fd of the child on which the watcher waits for mcphost's end. */
export const WATCH_FD = 3;

const WATCH_SCRIPT = `(read _ <&${WATCH_FD}; kill -KILL 0) </dev/null >/dev/null 2>&1 & exec "$@" ${WATCH_FD}<&-`;

/** A command line to spawn. */
export interface CommandLine {
  readonly command: string;
  readonly args: readonly string[];
}

/**
 * The command line that runs `target` under the watcher. Spawn it `detached` (its own process
 * group) with a `'pipe'` at index {@link WATCH_FD} of `stdio`, and keep that pipe open (unref'd)
 * for as long as the child may run. Not on Windows, which has no `sh`: `undefined` there.
 */
export function watchedCommand(target: CommandLine): CommandLine | undefined {
  if (process.platform === 'win32') return undefined;
  // "$0" of the script: the name `ps` shows for the watcher.
  return {
    command: '/bin/sh',
    args: ['-c', WATCH_SCRIPT, 'mcphost-orphan-watch', target.command, ...target.args],
  };
}
