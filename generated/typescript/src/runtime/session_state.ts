// Copied by acp-codegen from templates/typescript/runtime/session_state.ts: edit it there, then run:
//   make generate
/**
 * The state of one session as its messages left it: the four actions of the schema's `x-state`
 * annotations and the path reader they use. Layer: typed layer (pure data; `ClientState`,
 * client_state.ts, routes each message here by the edition's generated state table,
 * `<edition>/state.ts`). Nothing here knows a particular update: an effect names its action, its
 * target, the dotted paths of the message holding the target's id and the value, and the target's
 * field. The same reducer as the Python and Go runtimes'; tests/corpus/state/ is the corpus all
 * three replay.
 *
 * - `upsert` merges the message's fields into the entry: "omitted fields leave the existing tool
 *   call value unchanged, `null` clears or unsets the value, and concrete values replace the
 *   previous value" (`ToolCallUpdate`); "A concrete `_meta` object instead patches the stored
 *   metadata by top-level key" (v2; the edition's `_meta` policy, v1 merges).
 * - `append` extends the entry's field: one item onto a list ("Tool-call content chunks append one
 *   `ToolCallContent` item to the current content", `ToolCallContentChunk`), or a string onto a
 *   string; base64 strings (a terminal's `output.data`) join their bytes. An entry a chunk names
 *   before its upsert is made.
 * - `replace` sets the target, or its entry, or its field, to the value (the message itself
 *   without its union tag when no value is named); an absent value removes it ("Omitted or empty
 *   means no config options are advertised", `NewSessionResponse.configOptions`).
 * - `remove` deletes the entry (an unknown id changes nothing), or the target.
 *
 * Collections (targets with an id) keep their entries in arrival order. The state shares the
 * values of the messages it applied and never changes them: every write copies along its path,
 * but for the list an append to a target made last, which the next append to it grows in place (a
 * message's twentieth chunk costs what its first did).
 * `undefined` stands for an absent value throughout (JSON has none).
 */

import { mergeMeta, patchMeta, type JsonObject, type MetaPolicy } from "./session_info.js";
import { appendable, appended, isObject, pointer, put, read, without, written, type Json } from "./state_values.js";

/** One effect of an annotation (`x-state`), as the generated table gives it. */
export interface StateEffect {
  readonly scope: string;
  readonly action: string;
  readonly target: string;
  readonly id: string | null;
  readonly field: string | null;
  readonly value: string | null;
  /** `turn`: without the `id` path, the entry of the session's current prompt turn (v1). */
  readonly fallback: string | null;
  /** `base64`: the value is encoded bytes ("Independently base64-encoded terminal output bytes",
   * `TerminalOutputChunk.data`): an append joins the bytes, not the text. */
  readonly encoding: string | null;
}

/** What one applied effect changed: the target, the entry's id (null: the target itself). */
export interface StateChange {
  readonly scope: string;
  readonly session: string | null;
  readonly target: string;
  readonly id: string | null;
  readonly action: string;
}

export const UPSERT = "upsert";
export const APPEND = "append";
export const REPLACE = "replace";
export const REMOVE = "remove";
export const ACTIONS: ReadonlySet<string> = new Set([UPSERT, APPEND, REPLACE, REMOVE]);
/** Why a message is malformed: a path it must hold is absent, or holds a value of a type the
 * action cannot use (an id that is not a string, a field that is neither a list nor a string). */
export const MISSING = "missing";
export const WRONG_TYPE = "type";
const META = "_meta";

/** A `StateEffect` made ready to carry out: its paths split once (read per update). */
export class Effect {
  readonly scope: string;
  readonly action: string;
  readonly target: string;
  readonly id: readonly string[] | null;
  readonly field: readonly string[];
  readonly value: readonly string[] | null;
  readonly turnFallback: boolean;
  readonly base64: boolean;
  /** The effect takes its id from inside its value (`subject.toolCall.toolCallId`). */
  readonly idUnderValue: boolean;

  constructor(readonly effect: StateEffect) {
    this.scope = effect.scope;
    this.action = effect.action;
    this.target = effect.target;
    this.id = effect.id === null ? null : effect.id.split(".");
    this.field = effect.field === null ? [] : effect.field.split(".");
    this.value = effect.value === null ? null : effect.value.split(".");
    this.turnFallback = effect.fallback === "turn";
    this.base64 = effect.encoding === "base64";
    const id = this.id;
    const value = this.value;
    this.idUnderValue = id !== null && value !== null && id.length > value.length && value.every((key, i) => id[i] === key);
  }
}

/** A message lacks a path an effect needs (`pointer`, into the state message). */
export class Malformed extends Error {
  constructor(
    readonly pointer: string,
    readonly reason: string,
  ) {
    super(`${pointer} is ${reason}`);
    this.name = "Malformed";
  }
}

/** A collection target: entry id → entry, in arrival order (an entry keeps its place when set). */
class Entries extends Map<string, unknown> {}

/** One effect made ready to commit: its key (null: the target itself) and its value. */
export interface Step {
  readonly effect: Effect;
  readonly key: string | null;
  readonly value: unknown;
}

/** A problem of a malformed message, reported once per kind. */
export interface StateProblem {
  readonly kind: string;
  readonly pointer: string;
  readonly reason: string;
}

/** A target as a snapshot gives it: a collection as `[{id, value}]` in arrival order. */
export interface Snapshot {
  targets: { [target: string]: unknown };
  log: unknown[];
  problems: StateProblem[];
}

/**
 * The state of one scope: a session's (or the agent's, for `agent`-scoped effects). `get(target)`
 * reads a target (a collection as a `Map` of entries), `entries(target)` a collection's entries in
 * arrival order, `log` the messages kept without being applied (an update no annotation covers, a
 * variant this schema does not know, a malformed update), `problems` one per kind of malformed
 * message, `snapshot()` all of it as plain JSON.
 */
export class SessionState {
  private readonly targets = new Map<string, unknown>();
  private readonly reported = new Set<string>();
  /** Per target, the list an append to it made last: the next append to that list grows it in
   * place (a message's chunks arrive together); an append to any other list of the target copies
   * it, and the copy takes its place here. A message's list is never here, so never changed. */
  private readonly grown = new Map<string, unknown[]>();
  /** The collections whose entries `get` handed out as a live `Map`: an entry read from it later
   * could hold any of their lists, so an append to them always copies. */
  private readonly shared = new Set<string>();
  readonly log: unknown[] = [];
  readonly problems: StateProblem[] = [];
  /** The prompt turns started so far (v1's chunks without `messageId` join its message). */
  turn = 0;

  constructor(private readonly meta: MetaPolicy | string = "replace") {}

  /** The target's value, a collection's entries by id (live: it gets the entries set later), or
   * undefined where never set. A later update never changes the value or an entry read. */
  get(target: string): unknown {
    const found = this.targets.get(target);
    this.grown.delete(target); // a list it holds is the reader's now: the next append copies
    if (found instanceof Entries) this.shared.add(target);
    return found;
  }

  /** A collection's entries in arrival order (empty where it has none); a later update never
   * changes them (it replaces an entry, never changes one handed out). */
  entries(target: string): unknown[] {
    const found = this.targets.get(target);
    this.grown.delete(target); // a list an entry holds is the reader's now: the next append copies
    return found instanceof Entries ? [...found.values()] : [];
  }

  /** The state as plain JSON: `targets` (a collection as `[{id, value}]` in arrival order), `log`
   * and `problems`; a copy the caller may keep or change. */
  snapshot(): Snapshot {
    const targets: { [target: string]: unknown } = {};
    for (const [name, value] of this.targets) {
      put(targets, name, value instanceof Entries ? [...value].map(([id, entry]) => ({ id, value: entry })) : value);
    }
    return structuredClone({ targets, log: this.log, problems: this.problems });
  }

  /** Records a malformed message's problem, once per kind; whether it is new. */
  report(kind: string, where: string, reason: string): boolean {
    if (this.reported.has(kind)) return false;
    this.reported.add(kind);
    this.problems.push({ kind, pointer: where, reason });
    return true;
  }

  // -- the four actions: `step` checks a message, `commit` applies it ----------------------------

  /** `effect` read from `payload` (at `base` in the state message); null when it does not apply
   * (the object holding its value lacks it: a permission request whose subject is not a tool
   * call; a value absent at the top, `plan_update`'s `plan`, is malformed); throws `Malformed`
   * when a path it needs is absent or of the wrong type. Changes nothing. */
  step(effect: Effect, payload: unknown, base: string, tag: string | null): Step | null {
    const valueKeys = effect.value;
    if (effect.idUnderValue && valueKeys !== null) {
      const found = read(payload, valueKeys);
      if (found == null) {
        if (valueKeys.length > 1) {
          // a variant without it (a permission request not about a tool call), or an optional
          // holder left out (v2's `subject`): the effect does not apply
          const holder = read(payload, valueKeys.slice(0, -1));
          if (holder === undefined || isObject(holder)) return null;
        }
        throw new Malformed(pointer(base, valueKeys), found === undefined ? MISSING : WRONG_TYPE);
      }
    }
    let key: string | null = null;
    if (effect.id !== null) {
      const found = read(payload, effect.id);
      if (typeof found === "string") key = found;
      else if (found == null && effect.turnFallback) key = `turn:${this.turn}`;
      else throw new Malformed(pointer(base, effect.id), found === undefined ? MISSING : WRONG_TYPE);
    }
    let value: unknown;
    if (valueKeys !== null) {
      value = read(payload, valueKeys);
    } else if (tag !== null && isObject(payload)) {
      value = without(payload, tag);
    } else {
      value = payload;
    }
    if (effect.action === APPEND) {
      if (value === undefined) throw new Malformed(pointer(base, valueKeys ?? []), MISSING);
      const current = read(this.entry(effect.target, key), effect.field);
      if (!appendable(current, value, effect.base64)) throw new Malformed(pointer(base, valueKeys ?? []), WRONG_TYPE);
    } else if (effect.action === UPSERT && !isObject(value)) {
      throw new Malformed(valueKeys === null ? base : pointer(base, valueKeys), WRONG_TYPE);
    }
    return { effect, key, value };
  }

  /** Carries out a checked step; what changed (null: nothing). */
  commit(step: Step, session: string | null): StateChange | null {
    const { effect, key, value } = step;
    const { action, target } = effect;
    if (action === REMOVE) {
      if (!this.remove(target, key)) return null;
      return { scope: effect.scope, session, target, id: key, action };
    }
    const entry = this.entry(target, key);
    let updated: unknown;
    if (action === APPEND) {
      const field = effect.field;
      const current = read(entry, field);
      if (!effect.base64 && this.grows(target, current)) {
        (current as unknown[]).push(value); // a list this state made, which the entry holds
        return { scope: effect.scope, session, target, id: key, action };
      }
      const joined = appended(current, value, effect.base64);
      if (Array.isArray(joined) && !this.shared.has(target)) this.grown.set(target, joined);
      if (field.length === 0) {
        updated = joined;
      } else {
        updated = written(entry, field, joined);
        if (entry === undefined && key !== null && effect.id !== null) {
          updated = written(updated, effect.id, key); // a chunk before its entry's upsert
        }
      }
    } else if (action === UPSERT) {
      updated = this.upsert(entry, effect.field, value as Json);
    } else if (effect.field.length > 0) {
      updated = written(entry, effect.field, value);
    } else {
      updated = value;
    }
    this.store(target, key, updated);
    return { scope: effect.scope, session, target, id: key, action };
  }

  // -- the fast path (`ClientState`'s plain routes): `step` then `commit` of one plain effect in
  // one call, or false where it does not apply, having changed nothing (the generic way then
  // carries the message out, and reports what is malformed) --------------------------------------

  /** An append of `value` (no string: a string may extend a string) as one more item of the list
   * `field` of the entry `key` of the collection `target`; an entry the chunk names before its
   * upsert is made (`{[field]: [value], [idKey]: key}`). False where the collection is not made
   * yet, the entry is no object, or its field is neither absent nor a list. */
  appendItem(target: string, key: string, field: string, idKey: string, value: unknown): boolean {
    const entries = this.targets.get(target);
    if (!(entries instanceof Entries)) return false;
    const entry = entries.get(key);
    let list: unknown[];
    if (entry === undefined) {
      list = [value];
      entries.set(key, written(written(undefined, [field], list), [idKey], key));
    } else {
      if (!isObject(entry)) return false;
      const current = Object.hasOwn(entry, field) ? entry[field] : undefined;
      if (this.grows(target, current)) {
        (current as unknown[]).push(value); // a list this state made, which the entry holds
        return true;
      }
      if (Array.isArray(current)) list = [...(current as unknown[]), value];
      else if (current == null) list = [value];
      else return false;
      entries.set(key, written(entry, [field], list));
    }
    if (!this.shared.has(target)) this.grown.set(target, list);
    return true;
  }

  /** An upsert of the update `fields` (but its union tag `tag`) into the entry `key` of the
   * collection `target`, or (`key` null) into the target's one value. False where the collection
   * is not made yet, or (`key` null) the target is a collection. */
  upsertFields(target: string, key: string | null, fields: Json, tag: string): boolean {
    const found = this.targets.get(target);
    let entry: unknown;
    if (key === null) {
      if (found instanceof Entries) return false;
      entry = found;
    } else {
      if (!(found instanceof Entries)) return false;
      entry = found.get(key);
    }
    let merged: { [key: string]: unknown };
    if (!Object.hasOwn(fields, META) && !Object.values(fields).includes(null)) {
      // Concrete values only: each replaces the entry's (spread defines own properties, so a
      // `__proto__` field stays data). An entry holds no union tag.
      const { [tag]: _tag, ...concrete } = fields;
      merged = isObject(entry) ? { ...entry, ...concrete } : concrete;
    } else {
      merged = isObject(entry) ? { ...entry } : {};
      this.mergeInto(merged, fields, tag);
    }
    if (key === null) this.targets.set(target, merged);
    else (found as Entries).set(key, merged);
    return true;
  }

  /** `fields` (but `tag`, when named) merged into `merged`: "`null` clears or unsets the value",
   * a `_meta` object merges by the edition's policy, any other value replaces the field's. */
  private mergeInto(merged: { [key: string]: unknown }, fields: Json, tag: string | null): void {
    for (const name of Object.keys(fields)) {
      if (name === tag) continue; // an entry holds no union tag
      const value = fields[name];
      if (value === null) delete merged[name];
      else if (name === META && isObject(value)) merged[name] = this.metaOf(merged[name], value);
      else put(merged, name, value);
    }
  }

  /** A replace of the target `target` by `value` (not undefined: an absent value removes it). */
  replaceTarget(target: string, value: unknown): void {
    this.targets.set(target, value);
  }

  /** Whether `value` is the list an append to `target` made last (`grown`). */
  private grows(target: string, value: unknown): boolean {
    return Array.isArray(value) && this.grown.get(target) === value;
  }

  private entry(target: string, key: string | null): unknown {
    const found = this.targets.get(target);
    if (key === null) return found instanceof Entries ? undefined : found;
    return found instanceof Entries ? found.get(key) : undefined;
  }

  private store(target: string, key: string | null, value: unknown): void {
    if (key === null) {
      if (value === undefined) this.targets.delete(target);
      else this.targets.set(target, value);
      return;
    }
    let entries = this.targets.get(target);
    if (!(entries instanceof Entries)) {
      entries = new Entries();
      this.targets.set(target, entries);
    }
    if (value === undefined) (entries as Entries).delete(key);
    else (entries as Entries).set(key, value);
  }

  private remove(target: string, key: string | null): boolean {
    if (key === null) return this.targets.delete(target);
    const entries = this.targets.get(target);
    return entries instanceof Entries && entries.delete(key);
  }

  private upsert(entry: unknown, field: readonly string[], fields: Json): unknown {
    const inner = field.length === 0 ? entry : read(entry, field);
    const merged: { [key: string]: unknown } = isObject(inner) ? { ...inner } : {};
    this.mergeInto(merged, fields, null);
    return field.length === 0 ? merged : written(entry, field, merged);
  }

  private metaOf(stored: unknown, given: Json): unknown {
    if (this.meta === "replace") return given;
    const base = (isObject(stored) ? stored : {}) as JsonObject; // nothing stored: `null` keys go too
    return this.meta === "merge" ? mergeMeta(base, given as JsonObject) : patchMeta(base, given as JsonObject);
  }
}
