/**
 * What the executable's bundle gives the `ollama` client in place of two globals it touches
 * (esbuild.config.mjs), so that a run never loads undici (Node's fetch, ~20 ms and ~12 MB on Node 20
 * for the module alone, ~225 ms and ~40 MB with a first request; see providers/ollama-http.ts):
 * - its `import 'whatwg-fetch'`, a browser polyfill that does nothing where `fetch` exists;
 * - the global `Headers` of its `headers instanceof Headers`, run on every request: reading the
 *   global loads undici. mcphost passes plain objects, so the answer is false without asking;
 *   a real `Headers` (which means undici is loaded already) is still recognised.
 */
export const Headers = {
  [Symbol.hasInstance](value: unknown): boolean {
    return (
      typeof value === 'object' &&
      value !== null &&
      value.constructor.name === 'Headers' &&
      value instanceof globalThis.Headers
    );
  },
};
