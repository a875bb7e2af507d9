// Copied by acp-codegen from templates/typescript/runtime/state_fast.ts: edit it there, then run:
//   make generate
/**
 * The fast path of the client state: the routes and effects `ClientState` carries out in one call
 * (a chunk appended to a message that exists, a tool call upserted, a run state replaced), as data
 * made once per table from its shapes, never from the update it is about. Layer: typed layer (pure
 * data; `client_state.ts` runs it first and hands everything that is not plain to its generic
 * path). The same as the Python runtime's `state_fast.py`.
 */

import { APPEND, REPLACE, UPSERT } from "./session_state.js";
import type { Json } from "./state_values.js";
import type { Compiled, Route, StateTable } from "./client_state.js";

const PARAMS = "params";

/** One variant's plain effect, as the fast path reads it: its action and target, and the keys of
 * the update holding the entry's id, the target's field and the value (null: none). */
export interface FastEffect {
  readonly action: string;
  readonly target: string;
  readonly idKey: string | null;
  readonly field: string | null;
  readonly valueKey: string | null;
}

/** The fast path of one method's route of params: the keys of its params holding the update and
 * the session, the update's union tag, and the plain effect of each variant that has one. Data,
 * not closures: one compiled `fastApply` serves every `ClientState`. */
export interface FastRoute {
  readonly atKey: string;
  readonly sessionKey: string;
  readonly tag: string;
  readonly effects: ReadonlyMap<string, FastEffect>;
}

/** The fast path of `route` (a route of params), or null where its shape is not the plain one:
 * the annotated union one key under `params` and tagged, the session one key under `params`. */
function fastRoute(route: Route): FastRoute | null {
  const sessionPath = route.session[0];
  const tag = route.tag;
  if (route.at.length !== 1 || tag === null || route.session.length !== 1 || sessionPath === undefined) return null;
  if (sessionPath.length !== 2 || sessionPath[0] !== PARAMS) return null;
  const effects = new Map<string, FastEffect>();
  for (const [variant, compiled] of route.entries) {
    const effect = variant === null ? null : fastEffect(compiled);
    if (effect !== null) effects.set(variant as string, effect);
  }
  return { atKey: route.at[0] as string, sessionKey: sessionPath[1] as string, tag, effects };
}

/** `compiled`'s one effect where its shape is plain, else null: a session effect with single-key
 * paths; an append's id, field and value named; an upsert's id (if any) and no field or value; a
 * replace's value (if any) and no id or field. */
function fastEffect(compiled: Compiled): FastEffect | null {
  const effect = compiled.effects[0];
  if (compiled.effects.length !== 1 || effect === undefined || !compiled.known || effect.scope !== "session") return null;
  if (effect.base64 || effect.turnFallback || effect.idUnderValue) return null;
  const single = (keys: readonly string[] | null): string | null => (keys !== null && keys.length === 1 ? (keys[0] as string) : null);
  const { action, target } = effect;
  const idKey = single(effect.id);
  const field = single(effect.field);
  const valueKey = single(effect.value);
  const plain =
    action === APPEND
      ? idKey !== null && field !== null && valueKey !== null
      : action === UPSERT
        ? effect.value === null && effect.field.length === 0 && (effect.id === null || idKey !== null)
        : action === REPLACE && effect.id === null && effect.field.length === 0 && (effect.value === null || valueKey !== null);
  return plain ? { action, target, idKey, field, valueKey } : null;
}

/** `child` of an object already checked: the value of its own property `key`, or undefined. */
export function own(object: Json, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** The fast paths of `table`, by method (made once per table: every `ClientState` of it shares them). */
const FAST_ROUTES = new WeakMap<StateTable, ReadonlyMap<string, FastRoute>>();

export function fastRoutesOf(table: StateTable, routes: Map<string, Map<string, Route>>): ReadonlyMap<string, FastRoute> {
  let found = FAST_ROUTES.get(table);
  if (found === undefined) {
    const made = new Map<string, FastRoute>();
    for (const [method, parts] of routes) {
      const route = parts.get(PARAMS);
      const fast = route === undefined ? null : fastRoute(route);
      if (fast !== null) made.set(method, fast);
    }
    FAST_ROUTES.set(table, (found = made));
  }
  return found;
}
