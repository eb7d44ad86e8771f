/** Where an exposed tool name leads, as the guard's stages and the approval question see it. */
import type { ToolHints } from './policy.js';
import type { ListedTool } from './tool-pins.js';

/** Where an exposed tool name leads. */
export interface ToolLocation {
  /** The configured server name. */
  readonly server: string;
  /** The tool's own name on that server. */
  readonly tool: string;
  /** What the server says about the tool (its annotations), for rules and the approval question. */
  readonly hints?: ToolHints;
  /** The tool's definition as its server lists it, for pinning (tool-pin-check.ts). */
  readonly definition?: ListedTool;
}
