/**
 * The question asked for an input of a config file in VS Code's form (`${input:id}`), before the
 * chat starts, on the terminal: the input's description, and what is typed hidden (nothing echoed,
 * as `sudo` does) when the input is a password. The answer is kept only in memory.
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { ConfigInput } from '../../../config/vscode-form.js';
import { AbortedError } from '../../core/errors.js';
import { MuteableOutput } from '../chat/muteable-output.js';
import { stripControlCharacters } from '../../safety/output-limits.js';

/** `askInput` for createRunner: asks on the terminal, one input at a time. */
export function terminalInputPrompt(
  input: Readable,
  output: Writable,
): (configInput: ConfigInput, file: string) => Promise<string | undefined> {
  return (configInput, file) => askOnce(input, output, configInput, file);
}

function askOnce(
  input: Readable,
  output: Writable,
  configInput: ConfigInput,
  file: string,
): Promise<string | undefined> {
  // The file is the user's or a trusted project's, but its text still must not move the cursor.
  const description = stripControlCharacters(configInput.description ?? configInput.id);
  const fallback =
    configInput.defaultValue === undefined || configInput.password
      ? ''
      : ` [${stripControlCharacters(configInput.defaultValue)}]`;
  const hidden = configInput.password ? ' (hidden as you type)' : '';
  const echo = new MuteableOutput(output);
  const lines = createInterface({ input, output: echo, terminal: true });
  output.write(
    `${stripControlCharacters(file)} asks for input "${stripControlCharacters(configInput.id)}"${hidden}\n`,
  );
  return new Promise((resolve, reject) => {
    let answered = false;
    lines.on('SIGINT', () => {
      output.write('\n');
      lines.close();
      reject(new AbortedError('cancelled at the question'));
    });
    lines.on('close', () => {
      echo.detach();
      // Ctrl-D: no answer (the input's default, or an error naming its variable).
      if (!answered) resolve(undefined);
    });
    lines.question(`${description}${fallback}: `, (answer) => {
      answered = true;
      if (configInput.password) output.write('\n');
      lines.close();
      resolve(answer);
    });
    // After the question is written: only what is typed is hidden.
    echo.muted = configInput.password;
  });
}
