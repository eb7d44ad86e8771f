/**
 * The UserPromptSubmit and Stop hooks around a Runner (real shell scripts, test/fixtures/hooks): a
 * blocked prompt never reaches the model; Stop hears of every end of a run and changes nothing.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PromptBlockedError } from '../../src/core/errors.js';
import { Runner } from '../../src/core/runner.js';
import { promptHooks } from '../../src/safety/prompt-hooks.js';
import { hookCommand } from '../fixtures/hooks/commands.js';
import { folder, hookRunner, one, recorded, tools, useHookFolder } from '../support/hook-fixtures.js';
import { ScriptedProvider, textReply, toolReply } from '../support/scripted-provider.js';

useHookFolder();

describe('UserPromptSubmit and Stop', () => {
  it('a blocked prompt stops the run before the model, with the hook reason', async () => {
    const provider = new ScriptedProvider([]);
    const runner = new Runner({
      provider,
      ...promptHooks(hookRunner({ UserPromptSubmit: one(hookCommand('block-if.sh', 'password')) })),
    });
    const error = await runner.run('my password is hunter2').catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(PromptBlockedError);
    expect((error as PromptBlockedError).message).toBe(
      'the prompt was blocked by a UserPromptSubmit hook: found password in the input',
    );
    expect(provider.requests).toEqual([]);
    expect(runner.history).toEqual([]);
  });

  it('a prompt the hook lets pass is sent, and the hook saw it', async () => {
    const log = join(folder, 'prompt.jsonl');
    const provider = new ScriptedProvider([textReply('hello')]);
    const runner = new Runner({
      provider,
      ...promptHooks(hookRunner({ UserPromptSubmit: one(hookCommand('record.sh', log)) })),
    });
    expect((await runner.run('say hello')).text).toBe('hello');
    expect(await recorded(log)).toEqual([
      expect.objectContaining({ hook_event_name: 'UserPromptSubmit', prompt: 'say hello' }),
    ]);
  });

  it('Stop gets the answer when the run completes, and the error when it fails', async () => {
    const log = join(folder, 'stop.jsonl');
    const provider = new ScriptedProvider([
      toolReply({ id: 't1', name: 'files__read', input: {} }),
      textReply('the word is mango'),
      { error: new Error('model exploded') },
    ]);
    const runner = new Runner({
      provider,
      tools: tools(),
      ...promptHooks(hookRunner({ Stop: one(hookCommand('record.sh', log)) })),
    });
    await runner.run('what is the word?');
    await expect(runner.run('again')).rejects.toThrow('model exploded');
    const [completed, failed] = await recorded(log);
    expect(completed).toMatchObject({
      hook_event_name: 'Stop',
      stop_hook_active: false,
      response: 'the word is mango',
      stop_reason: 'completed',
      meta: { steps: 2, tool_calls: 1 },
    });
    expect(failed).toMatchObject({
      stop_reason: 'error',
      response: '',
      meta: { error: expect.stringContaining('model exploded') as unknown },
    });
  });

  it('Stop hears of a cancelled run, even though the run signal is aborted', async () => {
    const log = join(folder, 'cancelled.jsonl');
    const runner = new Runner({
      provider: new ScriptedProvider([textReply('never')]),
      ...promptHooks(hookRunner({ Stop: one(hookCommand('record.sh', log)) })),
    });
    const controller = new AbortController();
    controller.abort();
    await expect(runner.run('x', { signal: controller.signal })).rejects.toThrow('cancelled');
    expect(await recorded(log)).toEqual([expect.objectContaining({ stop_reason: 'cancelled' })]);
  });

  it('a blocking Stop hook changes nothing', async () => {
    const provider = new ScriptedProvider([textReply('done')]);
    const runner = new Runner({
      provider,
      ...promptHooks(hookRunner({ Stop: one(hookCommand('block-exit2.sh')) })),
    });
    expect((await runner.run('x')).text).toBe('done');
  });
});
