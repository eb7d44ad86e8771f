/**
 * The check of tool definitions against their pins, for one session (see tool-pins.ts for why).
 *
 * When it runs, and why:
 *
 * - **at every listing** — each step's `tools()`, which is also the first listing after a server's
 *   `notifications/tools/list_changed` (the pool asks the server again on the next listing): the
 *   definitions the model is about to read are the ones that matter, and a withheld tool must be
 *   left out of what it reads. A definition already checked in this session is recognised by its
 *   hash (kept per definition object), so a step without changes reads no file.
 * - **before each call** — the definition behind the name can change between a listing and a call
 *   (a server restarted after a crash lists its tools again): the call is checked against the
 *   definition it will really run under, and a withheld tool is refused whatever the model asks.
 *
 * A tool is pinned the first time it is seen when it needs no approval, else the first time a
 * call of it is approved. A changed definition is compared with this session's last checked one,
 * else with the pin file's, and handled by the server's `toolChanges` policy: `warn` pins the new
 * definition and says so; `ask` asks the user (`UserQuestions.reviewToolChange`; no one to ask is
 * `block`, said as such); `block` withholds the tool for the session and keeps the old pin, so it
 * stays withheld in later runs until `mcphost mcp pins reset`.
 */
import { askUser, type QuestionQueue, type UserQuestions } from '../core/questions.js';
import { messageOf } from '../core/errors.js';
import type { AuditSink, DecidedBy, ServerIdentity } from './audit-log.js';
import { describeDefinitionChange } from './tool-pin-diff.js';
import { pinKey, type ToolPin, type ToolPinStore } from './tool-pin-store.js';
import {
  definitionHash,
  pinIdentityOf,
  pinnedDefinitionOf,
  toolChangePolicyFor,
  type ListedTool,
  type PinnedDefinition,
  type ToolChangePolicy,
  type ToolChangeSettings,
} from './tool-pins.js';
import { auditRecord } from './guard/audit-record.js';
import type { ToolCallBlock } from '../core/types.js';

/** Where an exposed tool name leads (the guard's `ToolLocation` fits). */
export interface PinnableLocation {
  readonly server: string;
  readonly tool: string;
  /** The definition as the server listed it; absent for the host's own tools, which are not pinned. */
  readonly definition?: ListedTool;
}

/** A changed definition and what was done about it (also an audit line and a warning). */
export interface ToolChangeNotice {
  readonly server: string;
  readonly tool: string;
  readonly exposedName: string;
  readonly policy: ToolChangePolicy;
  /** `used`: the new definition is used (and pinned); `withheld`: the tool is kept from the model. */
  readonly action: 'used' | 'withheld';
  readonly decidedBy: Extract<DecidedBy, 'policy' | 'user' | 'no-one-to-ask'>;
  readonly previousHash: string;
  readonly hash: string;
  /** What changed, one line each (tool-pin-diff.ts). */
  readonly changes: readonly string[];
  /** What happened, in one line (the changes follow it where it is shown). */
  readonly summary: string;
}

export interface ToolPinCheckOptions {
  readonly store: ToolPinStore;
  readonly settings?: ToolChangeSettings;
  /** Asks about a change under `ask` (`reviewToolChange`). Missing: treated as `block`. */
  readonly questions?: UserQuestions;
  /** The runner's one question queue: this question never overlaps an approval prompt. */
  readonly queue: QuestionQueue;
  /** Gets one line per change. */
  readonly audit?: AuditSink;
  readonly sessionId?: string;
  readonly identify?: (server: string) => ServerIdentity | undefined;
  /** Told of each change (the chat and `-p` show it with its lines; createRunner's `tool-change` event). */
  readonly onChange?: (notice: ToolChangeNotice) => void;
  /** Told when the pin file cannot be used (checks then hold for the session only). */
  readonly onWarning?: (message: string) => void;
  readonly now?: () => number;
}

/** A definition as checked: its pinned form and hash. */
interface Checked {
  readonly definition: PinnedDefinition;
  readonly hash: string;
}

/** A call may run, or is refused with what the model is told. */
export type PinVerdict = { readonly kind: 'run' } | { readonly kind: 'refuse'; readonly message: string };

/** The pin check of one session. */
export class ToolPinCheck {
  readonly #options: ToolPinCheckOptions;
  /** Hashes by definition object: the pool keeps a tool's object until its list is fetched again. */
  readonly #hashes = new WeakMap<object, Checked>();
  /** The definition this session last checked for each tool (`server\0tool`), and whether it is pinned. */
  readonly #checked = new Map<string, Checked & { readonly pinned: boolean }>();
  /** Tools kept from the model, with the definition that was refused and what the model is told. */
  readonly #withheld = new Map<string, { readonly hash: string; readonly message: string }>();
  #storeFailed = false;
  /** The check running now: the next waits for it (see #checkInTurn). */
  #turns: Promise<unknown> = Promise.resolve();

  constructor(options: ToolPinCheckOptions) {
    this.#options = options;
  }

  /**
   * Checks the tools about to be listed to the model; resolves to the exposed names to withhold.
   * `pinsOnSight` says whether a tool needs no approval (so is pinned now, not at its approval).
   */
  async screen(
    tools: ReadonlyArray<{ readonly exposedName: string; readonly location: PinnableLocation | undefined }>,
    pinsOnSight: (exposedName: string, location: PinnableLocation) => boolean,
    signal: AbortSignal,
  ): Promise<ReadonlySet<string>> {
    const subjects: Subject[] = [];
    for (const { exposedName, location } of tools) {
      const subject = this.#subject(exposedName, location, (at) => pinsOnSight(exposedName, at));
      if (subject !== undefined) subjects.push(subject);
    }
    if (subjects.some((subject) => this.#known(subject) === 'unknown')) {
      await this.#checkInTurn(subjects, signal);
    }
    return new Set(
      subjects.filter((subject) => this.#known(subject) === 'withheld').map((subject) => subject.exposedName),
    );
  }

  /** Checks the definition a call will run under (refused when its tool is withheld). */
  async beforeCall(
    exposedName: string,
    location: PinnableLocation | undefined,
    pinsOnSight: boolean,
    signal: AbortSignal,
  ): Promise<PinVerdict> {
    const subject = this.#subject(exposedName, location, () => pinsOnSight);
    if (subject === undefined) return { kind: 'run' };
    const state = this.#known(subject);
    if (state === 'unknown') await this.#checkInTurn([subject], signal);
    const refused = this.#withheld.get(subject.key);
    return refused !== undefined && refused.hash === subject.checked.hash
      ? { kind: 'refuse', message: refused.message }
      : { kind: 'run' };
  }

  /** A call of the tool was approved: its definition is pinned, unless it already is. */
  async approved(location: PinnableLocation | undefined): Promise<void> {
    const subject = this.#subject('', location, () => true);
    if (subject === undefined) return;
    const known = this.#checked.get(subject.key);
    if (known?.pinned === true && known.hash === subject.checked.hash) return;
    await this.#checkInTurn([subject], new AbortController().signal);
  }

  #subject(
    exposedName: string,
    location: PinnableLocation | undefined,
    pinsOnSight: (location: PinnableLocation) => boolean,
  ): Subject | undefined {
    if (location?.definition === undefined) return undefined;
    return {
      exposedName,
      server: location.server,
      tool: location.tool,
      identity: pinIdentityOf(this.#options.identify?.(location.server), location.server),
      key: `${location.server}\0${location.tool}`,
      checked: this.#hashOf(location.definition),
      pinNow: pinsOnSight(location),
    };
  }

  #hashOf(tool: ListedTool): Checked {
    let checked = this.#hashes.get(tool);
    if (checked === undefined) {
      const definition = pinnedDefinitionOf(tool);
      checked = { definition, hash: definitionHash(definition) };
      this.#hashes.set(tool, checked);
    }
    return checked;
  }

  /** What this session already knows of a definition, without reading the pin file. */
  #known(subject: Subject): 'ok' | 'withheld' | 'unknown' {
    const withheld = this.#withheld.get(subject.key);
    if (withheld !== undefined && withheld.hash === subject.checked.hash) return 'withheld';
    const known = this.#checked.get(subject.key);
    if (known === undefined || known.hash !== subject.checked.hash) return 'unknown';
    // Seen before, not pinned yet, and now pinned on sight: checked again so that it is pinned.
    return !known.pinned && subject.pinNow ? 'unknown' : 'ok';
  }

  /**
   * Checks those of `subjects` still unknown, one check at a time: guards that share this check
   * (the jobs of a batch, src/setup/job-host.ts) list the same definitions at once, and a change
   * must be decided, said and audited once, not once a job.
   */
  #checkInTurn(subjects: readonly Subject[], signal: AbortSignal): Promise<void> {
    const unknown = () => subjects.filter((subject) => this.#known(subject) === 'unknown');
    const turn = this.#turns.then(() => this.#check(unknown(), signal));
    this.#turns = turn.catch(() => undefined);
    return turn;
  }

  /** Checks definitions against the session's and the file's (a withheld one goes to #withheld). */
  async #check(subjects: readonly Subject[], signal: AbortSignal): Promise<void> {
    if (subjects.length === 0) return;
    const { store } = this.#options;
    let pins: ReadonlyMap<string, ToolPin> = new Map();
    try {
      pins = await store.pinsOf(subjects);
    } catch (error) {
      this.#cannotUseStore(error);
    }
    const changed: Array<{ subject: Subject; before: Checked }> = [];
    const toPin: Subject[] = [];
    for (const subject of subjects) {
      this.#withheld.delete(subject.key);
      const known = this.#checked.get(subject.key);
      const pin = pins.get(pinKey(subject));
      const before = known ?? pin;
      if (before !== undefined && before.hash !== subject.checked.hash) {
        changed.push({ subject, before });
      } else if (pin === undefined && subject.pinNow) {
        toPin.push(subject);
      } else {
        this.#checked.set(subject.key, { ...subject.checked, pinned: pin !== undefined });
      }
    }
    // Another process may have pinned another definition meanwhile: its pin is then compared with.
    for (const entry of await this.#pinIfAbsent(toPin)) {
      const subject = toPin.find((candidate) => pinKey(candidate) === pinKey(entry));
      if (subject === undefined) continue;
      if (entry.pin.hash === subject.checked.hash) {
        this.#checked.set(subject.key, { ...subject.checked, pinned: true });
      } else {
        changed.push({ subject, before: entry.pin });
      }
    }
    for (const { subject, before } of changed) await this.#decide(subject, before, signal);
  }

  async #pinIfAbsent(subjects: readonly Subject[]) {
    if (subjects.length === 0) return [];
    const pinnedAt = new Date((this.#options.now ?? Date.now)()).toISOString();
    const entries = subjects.map(({ identity, server, tool, checked }) => ({
      identity,
      server,
      tool,
      pin: { hash: checked.hash, pinnedAt, definition: checked.definition },
    }));
    try {
      return await this.#options.store.pinIfAbsent(entries);
    } catch (error) {
      this.#cannotUseStore(error);
      // Not kept: checked against this session's definitions only.
      for (const subject of subjects) this.#checked.set(subject.key, { ...subject.checked, pinned: false });
      return [];
    }
  }

  /** Handles one changed definition by policy; resolves to whether the tool may be used. */
  async #decide(subject: Subject, before: Checked, signal: AbortSignal): Promise<boolean> {
    const { server, tool } = subject;
    const policy = toolChangePolicyFor(this.#options.settings, server);
    const changes = describeDefinitionChange(before.definition, subject.checked.definition);
    const reset = `mcphost mcp pins reset ${server} ${tool}`;
    const what = `server "${server}" changed its tool "${tool}" since it was pinned`;
    let decidedBy: ToolChangeNotice['decidedBy'] = 'policy';
    let accepted: boolean;
    let why: string;
    switch (policy) {
      case 'warn':
        accepted = true;
        why = 'the new definition is used and pinned (toolChanges: warn)';
        break;
      case 'block':
        accepted = false;
        why = `withheld from the model (toolChanges: block) until the pin is reset: ${reset}`;
        break;
      case 'ask': {
        const ask = this.#options.questions?.reviewToolChange;
        if (ask === undefined) {
          decidedBy = 'no-one-to-ask';
          accepted = false;
          why = `withheld from the model: toolChanges is "ask" and no one can be asked here, so it counts as "block" (decide in the chat, or ${reset})`;
          break;
        }
        decidedBy = 'user';
        const answer = await askUser(this.#options.questions, this.#options.queue, 'reviewToolChange', {
          server,
          tool,
          exposedName: subject.exposedName,
          changes,
          signal,
        });
        accepted = answer.kind === 'accept';
        why = accepted
          ? 'the user accepted the new definition; it is pinned'
          : `the user did not accept it: withheld from the model for this session (the old pin is kept; ${reset} accepts it)`;
        break;
      }
      default: {
        const unknown: never = policy;
        throw new TypeError(`unknown toolChanges policy ${String(unknown)}`);
      }
    }
    if (accepted) {
      await this.#repin(subject);
    } else {
      this.#withheld.set(subject.key, {
        hash: subject.checked.hash,
        message:
          `The tool ${subject.exposedName} was not run: ${what}, and it is withheld ` +
          `(${decidedBy === 'user' ? 'the user did not accept the change' : `toolChanges: ${policy}`}). ` +
          `The user can accept the new definition with ${reset}.`,
      });
    }
    this.#notify({
      server,
      tool,
      exposedName: subject.exposedName,
      policy,
      action: accepted ? 'used' : 'withheld',
      decidedBy,
      previousHash: before.hash,
      hash: subject.checked.hash,
      changes,
      summary: `${what}; ${why}:`,
    });
    return accepted;
  }

  async #repin(subject: Subject): Promise<void> {
    const pinnedAt = new Date((this.#options.now ?? Date.now)()).toISOString();
    let pinned = true;
    try {
      await this.#options.store.replace({
        identity: subject.identity,
        server: subject.server,
        tool: subject.tool,
        pin: { hash: subject.checked.hash, pinnedAt, definition: subject.checked.definition },
      });
    } catch (error) {
      this.#cannotUseStore(error);
      pinned = false;
    }
    this.#checked.set(subject.key, { ...subject.checked, pinned });
  }

  #notify(notice: ToolChangeNotice): void {
    this.#options.onChange?.(notice);
    const identity = this.#options.identify?.(notice.server);
    // Not a call: the call fields say so (no id, no arguments, nothing run).
    const call: ToolCallBlock = { type: 'tool-call', id: '', name: notice.exposedName, input: {} };
    this.#options.audit?.record(
      auditRecord(
        {
          call,
          location: { server: notice.server, tool: notice.tool },
          requestedAt: (this.#options.now ?? Date.now)(),
          sessionId: this.#options.sessionId,
          turn: 0,
          identity,
        },
        {
          kind: 'tool-change',
          decidedBy: notice.decidedBy,
          reason: notice.summary,
          toolChange: {
            policy: notice.policy,
            action: notice.action,
            previousHash: notice.previousHash,
            hash: notice.hash,
            changes: notice.changes,
          },
        },
      ),
    );
  }

  #cannotUseStore(error: unknown): void {
    if (this.#storeFailed) return;
    this.#storeFailed = true;
    this.#options.onWarning?.(
      `tool pins cannot be used (${messageOf(error)}); tool definitions are checked within this session only`,
    );
  }
}

interface Subject {
  readonly exposedName: string;
  readonly server: string;
  readonly tool: string;
  readonly identity: string; // its pins are kept by it ({@link pinIdentityOf})
  readonly key: string;
  readonly checked: Checked;
  readonly pinNow: boolean;
}
