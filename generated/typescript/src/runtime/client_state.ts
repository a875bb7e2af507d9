// Copied by acp-codegen from templates/typescript/runtime/client_state.ts: edit it there, then run:
//   make generate
/**
 * The state a client keeps of an agent connection: each session's `SessionState` and the agent's,
 * fed with state messages and routed by the edition's generated state table. Layer: typed layer
 * (pure data; the client's role router feeds it, the session views and the client connection
 * expose it). The same as the Python runtime's `client_state.py`; tests/corpus/state/ is the
 * corpus both replay.
 *
 * A state message is one shape for every message that changes state: `{method, params}` for a
 * request or notification, `{method, params: <the request's>, result}` for a response. The table
 * (`<edition>/state.ts`, rendered from the schema's `x-state`/`x-scope` annotations, or v1's rule
 * table) says where each annotated message is and what it does; nothing here knows a particular
 * update.
 *
 * Unknown stays safe: an update of a method the table covers whose variant no annotation names
 * (or an effect of an action this runtime does not know) is kept in the state's `log` and changes
 * nothing else; a malformed one (a path it needs is absent) is logged too and reported once per
 * kind in `problems` with the JSON pointer of what is missing; `apply` never throws on a message.
 * A message is checked whole (every effect) before anything changes.
 *
 * The messages a session sends most go a fast path first (`state_fast.ts`, as the Python runtime's
 * `state_fast.py`): per route whose params name the session and hold the tagged update one key
 * down, per variant whose one effect is plain (a session effect with single-key paths, no field
 * for an upsert or replace, a list to append to), a handler carrying it out in one call. Whenever
 * anything is not plain (a session or collection not made yet, a string to extend, an absent or
 * odd id or value) it hands the message to the generic path (`step`, then `commit`), which
 * carries it out and reports what is malformed: the same state either way
 * (`new ClientState(table, onProblem, { fast: false })` is the generic path alone; the corpus runs
 * both).
 */

import {
  ACTIONS,
  APPEND,
  Effect,
  Malformed,
  MISSING,
  SessionState,
  WRONG_TYPE,
  UPSERT,
  type Snapshot,
  type StateChange,
  type StateEffect,
  type StateProblem,
  type Step,
} from "./session_state.js";
import { child, isObject, pointer, read, without, type Json } from "./state_values.js";
import { fastRoutesOf, own, type FastRoute } from "./state_fast.js";

const PARAMS = "params";
const RESULT = "result";
const SCOPES: ReadonlySet<string> = new Set(["session", "agent"]);
const TURN_SESSION = ["params", "sessionId"];

/** One annotation where a client meets it (see `acp_codegen/targets/state_table.py`). */
export interface StateEntry {
  readonly method: string;
  /** `params` (a request or notification) or `result` (a response). */
  readonly part: string;
  /** The field of the params holding the annotated union (`update`); null: the part itself. */
  readonly at: string | null;
  /** The union's tag property (`sessionUpdate`), left out of the values the message gives. */
  readonly tag: string | null;
  /** The tag's value (`tool_call_update`); null: the part itself is annotated. */
  readonly variant: string | null;
  /** The dotted paths of the state message that may hold the session id, the first present wins. */
  readonly session: readonly string[];
  readonly effects: readonly StateEffect[];
  readonly pointer: string;
  /** null: the schema's own `x-state`; else the rule-table entry (`SessionUpdate.plan`). */
  readonly rule: string | null;
}

/** One edition's client-state table (generated, `<edition>/state.ts`). */
export interface StateTable {
  readonly entries: readonly StateEntry[];
  /** The `_meta` policy of every upsert: `patch` (v2), `merge` (v1) or `replace`. */
  readonly meta: string;
  /** The request that starts a prompt turn (`session/prompt`) where an effect is keyed by it. */
  readonly turn: string | null;
}

/** A message in the one shape the state reads. */
export interface StateMessage {
  readonly method: string;
  readonly params?: unknown;
  readonly result?: unknown;
}

/** What one message did: its session (null: none named), the changes, whether it was kept in a
 * log instead (unknown or malformed), and the problem it raised (a new kind). */
export interface Applied {
  readonly session: string | null;
  readonly changes: readonly StateChange[];
  readonly logged: boolean;
  readonly problem: StateProblem | null;
}

/** Every session's state and the agent's, as plain JSON. */
export interface ClientSnapshot {
  agent: Snapshot;
  sessions: { [sessionId: string]: Snapshot };
}

export type StateListener = (applied: Applied) => void;

/** A table entry made ready to carry out: its effects compiled, whether this runtime knows them
 * all, the kind its problems are reported under. */
export interface Compiled {
  readonly effects: readonly Effect[];
  readonly known: boolean;
  readonly kind: string;
}

/** The entries of one (method, part), by variant (null: the part itself). */
export interface Route {
  readonly at: readonly string[];
  readonly tag: string | null;
  readonly session: readonly (readonly string[])[];
  /** The JSON pointer of the annotated part (`/params/update`). */
  readonly base: string;
  readonly entries: Map<string | null, Compiled>;
}

const NOTHING: Applied = Object.freeze({ session: null, changes: Object.freeze([]), logged: false, problem: null });

function applied(session: string | null, changes: readonly StateChange[], logged = false, problem: StateProblem | null = null): Applied {
  return { session, changes, logged, problem };
}

/** The routes of `table`, by method then part. */
function routesOf(table: StateTable): Map<string, Map<string, Route>> {
  const routes = new Map<string, Map<string, Route>>();
  for (const entry of table.entries) {
    let parts = routes.get(entry.method);
    if (parts === undefined) routes.set(entry.method, (parts = new Map()));
    let route = parts.get(entry.part);
    if (route === undefined) {
      const at = entry.at === null ? [] : entry.at.split(".");
      const base = pointer("/" + entry.part, at);
      route = { at, tag: entry.tag, session: entry.session.map((path) => path.split(".")), base, entries: new Map() };
      parts.set(entry.part, route);
    }
    const known = entry.effects.every((e) => ACTIONS.has(e.action) && SCOPES.has(e.scope));
    const kind = entry.variant === null ? entry.method : `${entry.method} ${entry.variant}`;
    route.entries.set(entry.variant, { effects: entry.effects.map((e) => new Effect(e)), known, kind });
  }
  return routes;
}

/** Every session's state and the agent's, from the messages `apply` is given, in order. */
export class ClientState {
  /** Agent-scoped state (`authStatus`), and the log of messages naming no session. */
  readonly agent: SessionState;
  readonly sessions = new Map<string, SessionState>();
  /** The states `session` handed out of sessions no message touched yet (in neither `sessions`
   * nor the snapshot): the first message touching one adopts it. */
  private readonly unseen = new Map<string, SessionState>();
  /** The methods whose messages change state (the turn's request among them). */
  readonly methods: ReadonlySet<string>;
  /** The requests whose responses change state (`session/new`'s `configOptions`). */
  readonly results: ReadonlySet<string>;
  private readonly routes: Map<string, Map<string, Route>>;
  /** The fast path of each method's plain route of params (see the module's comment). */
  private readonly fastRoutes: ReadonlyMap<string, FastRoute>;
  private readonly listeners = new Set<{ readonly listener: StateListener; readonly session: string | null }>();

  /** `onProblem`: told of each new kind of malformed message (the state's `problems` keep it);
   * `fast: false`: every message goes the generic way (the fast path is a shortcut to the same
   * state). */
  constructor(
    readonly table: StateTable,
    private readonly onProblem: (message: string) => void = () => {},
    options: { readonly fast?: boolean } = {},
  ) {
    this.routes = routesOf(table);
    this.fastRoutes = options.fast === false ? new Map() : fastRoutesOf(table, this.routes);
    this.agent = new SessionState(table.meta);
    const methods = new Set(table.entries.map((e) => e.method));
    if (table.turn !== null) methods.add(table.turn);
    this.methods = methods;
    this.results = new Set(table.entries.filter((e) => e.part === RESULT).map((e) => e.method));
  }

  /** Calls `listener` with what each applied message did (of `session` only, when given), after
   * the state changed; returns the function that unsubscribes it. */
  subscribe(listener: StateListener, session: string | null = null): () => void {
    const item = { listener, session };
    this.listeners.add(item);
    return () => void this.listeners.delete(item);
  }

  /** `apply`, then tells the listeners; a listener that throws is reported, never thrown. */
  feed(message: StateMessage): Applied {
    const done = this.apply(message);
    if (done.changes.length === 0 && !done.logged) return done;
    for (const { listener, session } of [...this.listeners]) {
      if (session !== null && session !== done.session) continue;
      try {
        listener(done);
      } catch (error) {
        this.onProblem(`a client-state listener threw: ${String(error)}`);
      }
    }
    return done;
  }

  /** The state of `sessionId`; reading it makes nothing appear: a session no message touched yet
   * reads empty and is in neither `sessions` nor the snapshot until one does. */
  session(sessionId: string): SessionState {
    let state = this.sessions.get(sessionId) ?? this.unseen.get(sessionId);
    if (state === undefined) {
      state = new SessionState(this.table.meta);
      this.unseen.set(sessionId, state);
    }
    return state;
  }

  /** The state a message about `sessionId` would change, not made to appear yet. */
  private candidate(sessionId: string): SessionState {
    return this.sessions.get(sessionId) ?? this.unseen.get(sessionId) ?? new SessionState(this.table.meta);
  }

  /** `state` (a `candidate`) made to appear: a message changed, logged or turned it. */
  private touched(sessionId: string, state: SessionState): SessionState {
    if (!this.sessions.has(sessionId)) {
      this.sessions.set(sessionId, state);
      this.unseen.delete(sessionId);
    }
    return state;
  }

  /** `{agent, sessions: {id: …}}`, each a `SessionState.snapshot()`. */
  snapshot(): ClientSnapshot {
    const sessions: { [sessionId: string]: Snapshot } = {};
    for (const [id, state] of this.sessions) Object.defineProperty(sessions, id, { value: state.snapshot(), enumerable: true, writable: true, configurable: true });
    return { agent: this.agent.snapshot(), sessions };
  }

  /** Carries out what `message` (a state message) does; never throws on its content. */
  apply(message: StateMessage): Applied {
    if (!isObject(message)) return NOTHING;
    const method = message.method;
    const part = Object.hasOwn(message, RESULT) ? RESULT : PARAMS;
    const fast = part === PARAMS && typeof method === "string" ? this.fastRoutes.get(method) : undefined;
    if (fast !== undefined) {
      const done = this.fastApply(fast, child(message, PARAMS));
      if (done !== null) return done;
    }
    const route = typeof method === "string" ? this.routes.get(method)?.get(part) : undefined;
    if (route === undefined) return method === this.table.turn ? this.turn(message) : NOTHING;
    // An absent part or field reads as null, as a JSON null would.
    let payload = child(message, part) ?? null;
    for (const key of route.at) payload = child(payload, key) ?? null;
    const variant = route.tag !== null ? (child(payload, route.tag) ?? null) : null;
    let sessionId: string | null = null;
    for (const path of route.session) {
      const found = read(message, path);
      if (typeof found === "string") {
        sessionId = found;
        break;
      }
    }
    const compiled = variant === null || typeof variant === "string" ? route.entries.get(variant) : undefined;
    if (compiled === undefined || !compiled.known) {
      this.holder(sessionId).log.push(message);
      return applied(sessionId, [], true);
    }
    return this.carryOut(message, route, compiled, sessionId, payload);
  }

  /** The fast path of `params` on `route`: what it did, or null where the generic path is to carry
   * the message out (a session not made yet, no plain effect, or one its state declines), nothing
   * changed. */
  private fastApply(route: FastRoute, params: unknown): Applied | null {
    if (!isObject(params)) return null;
    const payload = own(params, route.atKey);
    const sessionId = own(params, route.sessionKey);
    if (!isObject(payload) || typeof sessionId !== "string") return null;
    const variant = own(payload, route.tag);
    const effect = typeof variant === "string" ? route.effects.get(variant) : undefined;
    const state = this.sessions.get(sessionId);
    if (effect === undefined || state === undefined) return null;
    const { action, target, idKey, valueKey } = effect;
    let key: string | null = null;
    if (idKey !== null) {
      const found = own(payload, idKey);
      if (typeof found !== "string") return null;
      key = found;
    }
    if (action === APPEND) {
      const value = own(payload, valueKey as string);
      if (value === undefined || typeof value === "string") return null; // a string may extend a string
      if (!state.appendItem(target, key as string, effect.field as string, idKey as string, value)) return null;
    } else if (action === UPSERT) {
      if (!state.upsertFields(target, key, payload, route.tag)) return null;
    } else {
      const value = valueKey === null ? without(payload, route.tag) : own(payload, valueKey);
      if (value === undefined) return null; // an absent value removes the target
      state.replaceTarget(target, value);
    }
    return applied(sessionId, [{ scope: "session", session: sessionId, target, id: key, action }]);
  }

  /** The request that starts a prompt turn (v1's `session/prompt`): the session's turn advances,
   * nothing else changes. */
  private turn(message: StateMessage): Applied {
    const found = read(message, TURN_SESSION);
    const sessionId = typeof found === "string" ? found : null;
    if (sessionId !== null && !Object.hasOwn(message, RESULT)) this.touched(sessionId, this.candidate(sessionId)).turn += 1;
    return applied(sessionId, []);
  }

  /** Every effect checked, then every step committed: a malformed message changes nothing. */
  private carryOut(message: StateMessage, route: Route, compiled: Compiled, sessionId: string | null, payload: unknown): Applied {
    const effects = compiled.effects;
    if (effects.length === 1 && sessionId !== null && (effects[0] as Effect).scope !== "agent") {
      // One session effect (nearly every update): nothing to gather before committing.
      const found = this.sessions.get(sessionId);
      const holder = found ?? this.candidate(sessionId); // made to appear once the message touches it
      let step: Step | null;
      try {
        step = holder.step(effects[0] as Effect, payload, route.base, route.tag);
      } catch (error) {
        if (!(error instanceof Malformed)) throw error;
        return this.malformed(message, compiled.kind, sessionId, this.touched(sessionId, holder), error);
      }
      if (step === null) return applied(sessionId, []); // it does not apply: the session is not touched
      if (found === undefined) this.touched(sessionId, holder);
      const change = holder.commit(step, sessionId);
      return applied(sessionId, change === null ? [] : [change]);
    }
    const steps: Array<[SessionState, Step]> = [];
    let holder: SessionState | null = null;
    // The session's state, made to appear only once the message touches it (changed or logged).
    const own = sessionId === null ? null : this.candidate(sessionId);
    try {
      for (const effect of compiled.effects) {
        if (effect.scope === "agent") holder = this.agent;
        else if (sessionId === null || own === null) throw noSession(message, route);
        else holder = own;
        const step = holder.step(effect, payload, route.base, route.tag);
        if (step !== null) steps.push([holder, step]);
      }
    } catch (error) {
      if (!(error instanceof Malformed)) throw error;
      if (holder !== null && holder === own && sessionId !== null) this.touched(sessionId, own);
      return this.malformed(message, compiled.kind, sessionId, holder, error);
    }
    if (sessionId !== null && own !== null && steps.some(([state]) => state === own)) this.touched(sessionId, own);
    const changes: StateChange[] = [];
    for (const [state, step] of steps) {
      const change = state.commit(step, sessionId);
      if (change !== null) changes.push(change);
    }
    return applied(sessionId, changes);
  }

  private malformed(message: StateMessage, kind: string, sessionId: string | null, holder: SessionState | null, malformed: Malformed): Applied {
    const scope = holder ?? this.holder(sessionId);
    scope.log.push(message);
    if (!scope.report(kind, malformed.pointer, malformed.reason)) return applied(sessionId, [], true);
    this.onProblem(`malformed ${kind}: ${malformed.pointer} is ${malformed.reason}`);
    return applied(sessionId, [], true, { kind, pointer: malformed.pointer, reason: malformed.reason });
  }

  private holder(sessionId: string | null): SessionState {
    return sessionId === null ? this.agent : this.touched(sessionId, this.candidate(sessionId));
  }
}

/** A session effect with no session id: `missing` where no session path holds a value, `type` at
 * the first that holds one that is not a string. */
function noSession(message: StateMessage, route: Route): Malformed {
  for (const path of route.session) if (read(message, path) !== undefined) return new Malformed(pointer("", path), WRONG_TYPE);
  return new Malformed(route.session.length > 0 ? pointer("", route.session[0] as string[]) : "", MISSING);
}

/**
 * Sends one request of the client through `send`, feeding `state` what it sends and gets back: the
 * request of a prompt turn when sent (v1's chunks without a `messageId` join its turn), the
 * response of a request the table covers (`session/new`'s `configOptions`) when it arrives.
 */
export function sentWithState(state: ClientState, method: string, params: unknown, send: () => Promise<unknown>): Promise<unknown> {
  if (method === state.table.turn) state.feed({ method, params });
  if (!state.results.has(method)) return send();
  return send().then((result) => {
    state.feed({ method, params, result });
    return result;
  });
}
