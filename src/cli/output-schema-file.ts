/**
 * `--output-schema FILE`: the JSON Schema the one-shot answer must match, read and compiled before
 * anything starts, so a missing, unreadable or invalid file is one line naming it (exit 2) and no
 * server or model is started for nothing.
 */
import { readFile } from 'node:fs/promises';
import { ConfigError, messageOf } from '../core/errors.js';
import { compileOutputSchema } from '../core/structured-output.js';
import type { JsonSchemaObject } from '../core/types.js';

/** Reads and checks the schema file at `path` (as the user typed it: `shown`). */
export async function readOutputSchemaFile(path: string, shown: string): Promise<JsonSchemaObject> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder' : messageOf(error);
    throw new ConfigError(`--output-schema ${shown}`, `cannot read the schema: ${why}`);
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`--output-schema ${shown}`, `is not JSON: ${messageOf(error)}`);
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new ConfigError(`--output-schema ${shown}`, 'is not a JSON Schema: expected an object');
  }
  const object = schema as JsonSchemaObject;
  try {
    await compileOutputSchema(object);
  } catch (error) {
    // The core names `outputSchema`; the user knows the file.
    const detail = error instanceof ConfigError ? error.detail : messageOf(error);
    throw new ConfigError(
      `--output-schema ${shown}`,
      detail.replace(/^is not a schema/, 'is not a JSON Schema'),
    );
  }
  return object;
}
