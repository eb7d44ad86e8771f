/**
 * zod without its compiled parsers, for the executable only (the library leaves its embedder's zod
 * as it finds it). zod builds a fast parser for each object schema with `new Function` on its first
 * parse; code made that way is compiled anew on every run, as the code cache (code-cache.ts) holds
 * only the bundle's own functions, and a run parses most schemas once or twice. Measured: parsing
 * the config went from ~6 ms to ~1.7 ms of a one-shot's profile. The executable imports this module
 * first: zod reads the setting as each schema is built.
 */
import * as z from 'zod';

z.config({ jitless: true });
