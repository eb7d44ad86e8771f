/**
 * An editor's prompt (ACP content blocks) as the model's user content, the way the chat attaches
 * files: text as is, images as images, an embedded text resource as its path and a fenced copy of
 * its text, a resource link as a line naming it (the model may read it with a tool).
 */
import type { ContentBlock } from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import { fileURLToPath } from 'node:url';
import type { UserContent } from '../core/types.js';

export function userContentOf(prompt: readonly ContentBlock[]): UserContent[] {
  return prompt.flatMap((block): UserContent[] => {
    switch (block.type) {
      case 'text':
        return [{ type: 'text', text: block.text }];
      case 'image':
        return [{ type: 'image', mimeType: block.mimeType, data: block.data }];
      case 'resource': {
        const resource = block.resource;
        const name = displayName(resource.uri);
        if ('text' in resource) return [{ type: 'text', text: fenced(name, resource.text) }];
        if (resource.mimeType?.startsWith('image/') === true) {
          return [
            { type: 'text', text: `${name} (${resource.mimeType}, image follows)` },
            { type: 'image', mimeType: resource.mimeType, data: resource.blob },
          ];
        }
        throw RequestError.invalidParams(
          { uri: resource.uri },
          `the resource ${name} is binary (${resource.mimeType ?? 'no type'}): only text and images are taken`,
        );
      }
      case 'resource_link':
        return [{ type: 'text', text: `[${block.name}](${block.uri})` }];
      case 'audio':
        // Not advertised (promptCapabilities.audio is false): an editor that sends it anyway is told.
        throw RequestError.invalidParams(undefined, 'audio prompts are not supported');
      default: {
        const unexpected: never = block;
        throw RequestError.invalidParams(undefined, `unknown content block ${JSON.stringify(unexpected)}`);
      }
    }
  });
}

/** A file URI as its path; any other URI as is. */
function displayName(uri: string): string {
  try {
    return uri.startsWith('file:') ? fileURLToPath(uri) : uri;
  } catch {
    return uri;
  }
}

/** The name, then the text in a fence longer than any run of backticks inside it (as `@path`). */
function fenced(name: string, text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${name}\n${fence}\n${text.endsWith('\n') ? text : `${text}\n`}${fence}`;
}
