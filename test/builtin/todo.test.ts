/** The `todo` built-in server through the real pool: the list is kept between calls, per server. */
import { describe, expect, it } from 'vitest';
import { callTool, closePoolsAfterEach, startBuiltin } from './support.js';

closePoolsAfterEach();

describe('todo', () => {
  it('starts empty, keeps what was written, and shows progress', async () => {
    const pool = await startBuiltin({ name: 'todo', options: {} });
    expect((await callTool(pool, 'todo__todo_read')).text).toBe('The todo list is empty.');
    const written = await callTool(pool, 'todo__todo_write', {
      todos: [
        { content: 'read the code', status: 'completed' },
        { content: 'write the test', status: 'in_progress' },
        { content: 'open a pull request', status: 'pending' },
      ],
    });
    const expected = '1. [x] read the code\n2. [~] write the test\n3. [ ] open a pull request\n(1 of 3 done)';
    expect(written).toEqual({ text: expected, isError: false });
    expect((await callTool(pool, 'todo__todo_read')).text).toBe(expected);
  });

  it('refuses an item with an unknown status, keeping the list as it was', async () => {
    const pool = await startBuiltin({ name: 'todo', options: {} });
    await callTool(pool, 'todo__todo_write', { todos: [{ content: 'one', status: 'pending' }] });
    const bad = await callTool(pool, 'todo__todo_write', { todos: [{ content: 'two', status: 'done' }] });
    expect(bad.isError).toBe(true);
    expect((await callTool(pool, 'todo__todo_read')).text).toBe('1. [ ] one\n(0 of 1 done)');
  });

  it('keeps one list per server: a second pool starts empty', async () => {
    const first = await startBuiltin({ name: 'todo', options: {} });
    await callTool(first, 'todo__todo_write', { todos: [{ content: 'one', status: 'pending' }] });
    const second = await startBuiltin({ name: 'todo', options: {} });
    expect((await callTool(second, 'todo__todo_read')).text).toBe('The todo list is empty.');
  });
});
