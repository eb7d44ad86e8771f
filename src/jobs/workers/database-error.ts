/** The jobs database's error, apart from the driver, so the CLI's exit codes need not load it. */
import { McpHostError } from '../../core/errors.js';

/** The database could not be reached (or refused us): the message names its host and port. */
export class DatabaseUnreachableError extends McpHostError {
  readonly address: string;

  constructor(address: string, detail: string) {
    super(`the jobs database at ${address} cannot be reached: ${detail}`);
    this.address = address;
  }
}
