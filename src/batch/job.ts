/**
 * The batch job format: what one line of a jobs file means, how a prompt template is filled, and
 * the key that says whether a job already ran. Pure (no I/O): `mcphost batch` (src/batch) and the
 * durable workers both read jobs through it, so one file means the same thing to both.
 *
 * A line is either a JSON object (it starts with `{`) or plain text, which is the prompt. Blank
 * lines are skipped. A malformed line is an error naming its line number; the other lines still run.
 */
import * as z from 'zod';
import { createHash } from 'node:crypto';
import { canonicalJson } from '../util/canonical-json.js';

export { parseVarArguments } from './var-arguments.js';

/** One job: a prompt run by a fresh Runner, with its own history, budgets and approval state. */
export interface BatchJob {
  /** The caller's name for the job: the key of its result (else the line number and a hash). */
  readonly id?: string;
  /** The prompt, after its `{{name}}` placeholders were filled. */
  readonly prompt: string;
  /** `provider:model` for this job (else the batch's model). */
  readonly model?: string;
  /** A system prompt for this job (else the batch's). */
  readonly system?: string;
  /** Only these configured servers' tools (else every server of the batch). */
  readonly servers?: readonly string[];
  /**
   * Run as this named agent (docs/agents.md): its model, system prompt, tools, `maxSteps` and
   * `outputSchema`, below the line's own `model`, `system`, `servers` and `outputSchema`.
   */
  readonly agent?: string;
  /** A JSON Schema the final answer must match (structured output). */
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  /** The variables the prompt was filled with (the batch's `--var`s, overridden by the line's). */
  readonly vars?: Readonly<Record<string, string>>;
}

/** A job as read from a file: where it was and the key its result is recorded under. */
export interface NumberedJob {
  /** 1-based line number in the jobs file. */
  readonly line: number;
  /** `id` when the job has one, else `line:<n>:<hash>` (see {@link jobKey}). */
  readonly key: string;
  readonly job: BatchJob;
}

/** What one line of a jobs file holds. A tagged union: switch on `kind`. */
export type JobLine =
  | { readonly kind: 'job'; readonly job: NumberedJob }
  /** Empty or only white space: not a job. */
  | { readonly kind: 'blank'; readonly line: number }
  /** A line that is not a job; `message` says why, starting with `line <n>:`. */
  | { readonly kind: 'invalid'; readonly line: number; readonly message: string };

/** Batch-wide settings that shape every line. */
export interface JobLineOptions {
  /** `--var name=value`: variables for every job (a line's `vars` override them). */
  readonly vars?: Readonly<Record<string, string>>;
  /**
   * A prompt template for lines that carry only `vars` (no `prompt`), e.g. one line per row of an
   * evaluation set.
   */
  readonly template?: string;
}

const variableValue = z.union([z.string(), z.number(), z.boolean()]);

// A job line is checked strictly: a misspelt field ("promt") is an error naming it, not a silently
// ignored field and a job without its prompt.
const jobLineSchema = z.strictObject({
  id: z.union([z.string().min(1), z.number()]).optional(),
  prompt: z.string().optional(),
  model: z.string().min(1).optional(),
  system: z.string().optional(),
  servers: z.array(z.string().min(1)).optional(),
  agent: z.string().min(1).optional(),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  vars: z.record(z.string(), variableValue).optional(),
});

/** A `{{name}}` placeholder; white space inside the braces is allowed. */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g;

/** Names used by a template's placeholders, in order of first use. */
export function templateVariables(template: string): string[] {
  const names = new Set<string>();
  for (const match of template.matchAll(PLACEHOLDER)) names.add(match[1] ?? '');
  return [...names];
}

/**
 * Fills a template's `{{name}}` placeholders. Returns the missing names instead when a placeholder
 * has no value, so the caller can say which line and which variable. Text that is not a placeholder
 * (a single brace, JSON in the prompt) is left as it is.
 */
export function fillTemplate(
  template: string,
  vars: Readonly<Record<string, string>>,
):
  { readonly ok: true; readonly text: string } | { readonly ok: false; readonly missing: readonly string[] } {
  const missing = templateVariables(template).filter((name) => !Object.hasOwn(vars, name));
  if (missing.length > 0) return { ok: false, missing };
  return { ok: true, text: template.replace(PLACEHOLDER, (_whole, name: string) => vars[name] ?? '') };
}

/**
 * Parses one line of a jobs file (`line` counts from 1). Never throws: a bad line is an `invalid`
 * entry with a one-line message, so the batch goes on with the others.
 */
export function parseJobLine(text: string, line: number, options: JobLineOptions = {}): JobLine {
  const trimmed = text.trim();
  if (trimmed === '') return { kind: 'blank', line };
  const invalid = (detail: string): JobLine => ({
    kind: 'invalid',
    line,
    message: `line ${line}: ${detail}`,
  });

  let fields: z.infer<typeof jobLineSchema>;
  if (trimmed.startsWith('{')) {
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      return invalid(`not valid JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    const parsed = jobLineSchema.safeParse(value);
    if (!parsed.success) return invalid(describeIssue(parsed.error.issues[0]));
    fields = parsed.data;
  } else {
    fields = { prompt: trimmed };
  }

  const vars = { ...options.vars, ...stringValues(fields.vars) };
  const template = fields.prompt ?? options.template;
  if (template === undefined) {
    return invalid('no "prompt" (and no batch template for a line of only "vars")');
  }
  const prompt = fillTemplate(template, vars);
  if (!prompt.ok)
    return invalid(`no value for ${listNames(prompt.missing)} (give it in "vars" or with --var)`);
  if (prompt.text.trim() === '') return invalid('the prompt is empty');
  let system: string | undefined;
  if (fields.system !== undefined) {
    const filled = fillTemplate(fields.system, vars);
    if (!filled.ok) return invalid(`no value for ${listNames(filled.missing)} in "system"`);
    system = filled.text;
  }

  const job: BatchJob = {
    ...(fields.id !== undefined && { id: String(fields.id) }),
    prompt: prompt.text,
    ...(fields.model !== undefined && { model: fields.model }),
    ...(system !== undefined && { system }),
    ...(fields.servers !== undefined && { servers: fields.servers }),
    ...(fields.agent !== undefined && { agent: fields.agent }),
    ...(fields.outputSchema !== undefined && { outputSchema: fields.outputSchema }),
    ...(Object.keys(vars).length > 0 && { vars }),
  };
  return { kind: 'job', job: { line, key: jobKey(job, line), job } };
}

/**
 * Parses every line of a jobs file. Besides what {@link parseJobLine} finds, a job whose key was
 * already used by an earlier line is invalid: its result could not be told apart from the first's.
 */
export function parseJobLines(lines: Iterable<string>, options: JobLineOptions = {}): JobLine[] {
  const firstLineOfKey = new Map<string, number>();
  const entries: JobLine[] = [];
  let line = 0;
  for (const text of lines) {
    line += 1;
    const entry = parseJobLine(text, line, options);
    if (entry.kind === 'job') {
      const earlier = firstLineOfKey.get(entry.job.key);
      if (earlier !== undefined) {
        entries.push({
          kind: 'invalid',
          line,
          message: `line ${line}: id ${JSON.stringify(entry.job.key)} is already used by line ${earlier}`,
        });
        continue;
      }
      firstLineOfKey.set(entry.job.key, line);
    }
    entries.push(entry);
  }
  return entries;
}

/**
 * The key a job's result is recorded under, so a second run of the same file skips it: its `id`,
 * else `line:<n>:<hash>` where the hash covers everything that decides the answer (the filled
 * prompt, model, system prompt, servers, agent and schema). Editing a line or changing a `--var` therefore
 * makes a new job; moving a line to another line number does too, as two identical lines without
 * ids are two jobs.
 */
export function jobKey(job: BatchJob, line: number): string {
  if (job.id !== undefined) return job.id;
  const decisive = {
    prompt: job.prompt,
    model: job.model ?? null,
    system: job.system ?? null,
    servers: job.servers ?? null,
    outputSchema: job.outputSchema ?? null,
    // Only when given: the keys of lines without an agent stay those earlier versions recorded.
    ...(job.agent !== undefined && { agent: job.agent }),
  };
  return `line:${line}:${createHash('sha256').update(canonicalJson(decisive)).digest('hex').slice(0, 12)}`;
}

function stringValues(vars: Readonly<Record<string, string | number | boolean>> | undefined) {
  const strings: Record<string, string> = {};
  for (const [name, value] of Object.entries(vars ?? {})) strings[name] = String(value);
  return strings;
}

function listNames(names: readonly string[]): string {
  return names.map((name) => `{{${name}}}`).join(', ');
}

function describeIssue(issue: z.core.$ZodIssue | undefined): string {
  if (issue === undefined) return 'not a job';
  if (issue.code === 'unrecognized_keys') {
    return `unknown field ${issue.keys.map((key) => JSON.stringify(key)).join(', ')} (a job has id, prompt, model, system, servers, agent, outputSchema, vars)`;
  }
  const where = issue.path.length > 0 ? `"${issue.path.map(String).join('.')}"` : 'the line';
  if (issue.path.length === 0 && issue.code === 'invalid_type') return 'a job line must be a JSON object';
  return `${where}: ${issue.message}`;
}
