/**
 * The `fetch` built-in server: one tool, `fetch`, a guarded HTTP GET (see http-get.ts) whose HTML
 * is turned into Markdown by turndown (a well-kept converter; scripts, styles and other non-content
 * elements are dropped first). Text types are returned as they are; other types are described,
 * not dumped.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import TurndownService from 'turndown';
import * as z from 'zod';
import { HttpGetError, httpGet, type HttpGetResult } from './http-get.js';
import { parseAllowedAddresses, type NetworkPolicy } from './network-guard.js';
import type { FetchOptions } from './options.js';
import { describeThrown, errorResult, textResult } from './tool-result.js';

/** The whole fetch must end within this, unless configured. */
export const DEFAULT_FETCH_TIMEOUT_MS = 30_000;
/** Body bytes read at most, unless configured. */
export const DEFAULT_FETCH_MAX_BYTES = 5_000_000;
/** Redirects followed, unless configured. */
export const DEFAULT_FETCH_MAX_REDIRECTS = 5;
/** Characters of converted text returned by one call, unless the model asks for fewer. */
const DEFAULT_MAX_LENGTH = 20_000;

/** Where the server runs. */
export interface FetchServerContext {
  readonly options: FetchOptions;
  readonly userAgent: string;
}

/** Registers `fetch` on `server`. Throws for a bad `allowedAddresses` entry. */
export function registerFetchTools(server: McpServer, context: FetchServerContext): void {
  const { options } = context;
  const policy: NetworkPolicy = {
    allowPrivateNetworks: options.allowPrivateNetworks ?? false,
    allowedRanges: parseAllowedAddresses(options.allowedAddresses ?? []),
  };
  const converter = markdownConverter();

  server.registerTool(
    'fetch',
    {
      description:
        'Fetch a URL with HTTP GET. HTML comes back as Markdown; text and JSON as they are. Long pages are returned in parts: use start_index to read on.',
      inputSchema: z.object({
        url: z.string().min(1).describe('An http or https URL'),
        raw: z.boolean().optional().describe('Return HTML as it is, not as Markdown'),
        max_length: z
          .number()
          .int()
          .positive()
          .optional()
          .describe(`Characters to return (default ${DEFAULT_MAX_LENGTH})`),
        start_index: z.number().int().min(0).optional().describe('Character to start at, to read on'),
      }),
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async (args, request) => {
      let fetched: HttpGetResult;
      try {
        fetched = await httpGet({
          url: args.url,
          policy,
          timeoutMs: options.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS,
          maxBytes: options.maxBytes ?? DEFAULT_FETCH_MAX_BYTES,
          maxRedirects: options.maxRedirects ?? DEFAULT_FETCH_MAX_REDIRECTS,
          signal: request.mcpReq.signal,
          userAgent: context.userAgent,
        });
      } catch (error) {
        return errorResult(error instanceof HttpGetError ? error.message : describeThrown(error));
      }
      const text = bodyText(fetched, args.raw === true, converter);
      if (text === undefined) {
        return errorResult(
          `${fetched.url} answered ${fetched.status} with ${fetched.contentType || 'no content type'} (${fetched.body.length} bytes), which is not text`,
        );
      }
      const start = args.start_index ?? 0;
      const length = args.max_length ?? DEFAULT_MAX_LENGTH;
      const part = text.slice(start, start + length);
      const notes = [
        ...(start + length < text.length
          ? [
              `[${text.length - start - length} more characters: call again with start_index ${start + length}]`,
            ]
          : []),
        ...(fetched.cut ? [`[the body was cut at ${fetched.body.length} bytes]`] : []),
      ];
      const header = `${fetched.url} (${fetched.status})`;
      const body = [header, '', part, ...(notes.length === 0 ? [] : ['', ...notes])].join('\n');
      return fetched.status >= 400 ? errorResult(body) : textResult(body);
    },
  );
}

/** Turndown with the elements that are not content taken out. */
function markdownConverter(): TurndownService {
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
  });
  service.remove(['script', 'style', 'noscript', 'iframe', 'template', 'head', 'title']);
  return service;
}

/** The body as text: Markdown for HTML, as it is for other text types, undefined for binary ones. */
function bodyText(fetched: HttpGetResult, raw: boolean, converter: TurndownService): string | undefined {
  const [mediaType = '', ...parameters] = fetched.contentType
    .toLowerCase()
    .split(';')
    .map((part) => part.trim());
  const charset = parameters.find((parameter) => parameter.startsWith('charset='))?.slice('charset='.length);
  const isHtml = mediaType === 'text/html' || mediaType === 'application/xhtml+xml';
  const isText =
    isHtml ||
    mediaType.startsWith('text/') ||
    /^application\/([\w.+-]+\+)?(json|xml|javascript|yaml)$/.test(mediaType) ||
    (mediaType === '' && !fetched.body.subarray(0, 8192).includes(0));
  if (!isText) return undefined;
  const text = decode(fetched.body, charset);
  return isHtml && !raw ? converter.turndown(text).trim() : text;
}

function decode(body: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset?.replace(/"/g, '') ?? 'utf-8').decode(body);
  } catch {
    // An unknown charset label: UTF-8 is the web's default and the likeliest right guess.
    return new TextDecoder('utf-8').decode(body);
  }
}
