/**
 * zod without its compiled parsers, for the executable only (the library leaves its embedder's zod
 * as it finds it). zod builds a fast parser for each object schema with `new Function` on its first
 * parse; code made that way is compiled anew on every run, as the code cache (code-cache.ts) holds
 * only the bundle's own functions, and a run parses most schemas once or twice. Measured: 5 such
 * compilations per one-shot, now none; the config's parse went from ~6 to ~1.9 ms of its profile.
 * The executable imports this module first: zod reads the setting as each schema is built.
 */
import * as z from 'zod';

z.config({ jitless: true });
