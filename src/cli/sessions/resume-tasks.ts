/**
 * Taking up the tasks a conversation left running (`-c`, `--resume`, `-s`): the journal named the
 * tool calls of its last step that ran as tasks; their stand-in results are replaced by what the
 * tasks came to, followed on their servers now (progress shown as for any task), and saved.
 */
import type { JournaledTask } from '../../conversation/saved-conversation.js';
import type { Message, ToolCallBlock, ToolResultBlock } from '../../core/types.js';
import type { McpRunner } from '../../setup/create-runner.js';
import type { ConversationRecorder } from './conversation-recorder.js';
import { messageOf } from '../../core/errors.js';
import type { HostEventListener } from '../../setup/host-event.js';

/**
 * Wraps the CLI's `onEvent`: the first status report of a call that became a task writes its id
 * to the conversation's journal (a failure to write is a warning), then the event goes on.
 */
export function journalingTasks(
  recorder: ConversationRecorder,
  warn: (message: string) => void,
  next: HostEventListener,
): HostEventListener {
  return (event) => {
    if (event.type === 'tool-progress') {
      const { server, tool, toolCallId, task, progress } = event.progress;
      if (task !== undefined && toolCallId !== undefined && progress === 1) {
        recorder.recordTask({ server, tool, toolCallId, taskId: task.taskId }).catch((error: unknown) => {
          warn(messageOf(error));
        });
      }
    }
    next(event);
  };
}

/** What {@link resumeOpenTasks} needs besides the runner. */
export interface ResumeTasksOptions {
  readonly recorder: ConversationRecorder;
  readonly signal: AbortSignal;
  /** One line for the user per task taken up and per task ended. */
  readonly note: (message: string) => void;
}

/** Follows every open task to its end and puts its result in the history. */
export async function resumeOpenTasks(
  runner: McpRunner,
  openTasks: readonly JournaledTask[],
  options: ResumeTasksOptions,
): Promise<void> {
  if (openTasks.length === 0) return;
  const history = runner.history;
  const results = history.at(-1);
  const asked = history.at(-2);
  if (results?.role !== 'tool' || asked?.role !== 'assistant') return;
  const calls = new Map(
    asked.content
      .filter((block): block is ToolCallBlock => block.type === 'tool-call')
      .map((call) => [call.id, call]),
  );
  const followed = await Promise.all(
    openTasks.map(async (task): Promise<ToolResultBlock | undefined> => {
      const call = calls.get(task.toolCallId);
      if (call === undefined) return undefined;
      options.note(
        `following task ${task.taskId} ("${task.tool}" on server "${task.server}"), left running by the previous session`,
      );
      const result = await runner.resumeTask(call, task, options.signal);
      options.note(`task ${task.taskId} ${result.isError ? 'ended without a result' : 'finished'}`);
      return result;
    }),
  );
  const byCall = new Map(
    followed.flatMap((result) => (result === undefined ? [] : [[result.toolCallId, result] as const])),
  );
  const updated: Message = {
    role: 'tool',
    content: results.content.map((result) => byCall.get(result.toolCallId) ?? result),
  };
  runner.reset([...history.slice(0, -1), updated]);
  // Saved at once: the stand-in was never written, so this is the step's first result in the file.
  await options.recorder.recordChange(runner, runner.history);
}
