/**
 * What an edition does beyond its types, as data: the shape of each edition's generated
 * `behaviour.ts` (rendered from the IR's `Behaviour`, acp_codegen/ir/behaviour.py), and the small
 * pure rules the typed layer applies from it. Layer: typed layer. No runtime code asks which
 * edition it speaks: it reads these values (`lifecycle.answer === "insertion"`, a capability's
 * wire path, a cancel outcome's result, v1's turn rules); one engine carries them out
 * (behaviour_engine.ts).
 */

import type { Decoder } from "./decoding.js";
import { RequestError } from "./errors.js";
import type { MetaPolicy } from "./session_info.js";

/** Version negotiation in `initialize`. */
export interface Negotiation {
  readonly method: string;
  /** The params and result field holding the version (`protocolVersion`). */
  readonly field: string;
  /** The version this edition speaks. */
  readonly version: number;
  /** The error when no version fits (v2: -32022); null: the edition defines none, the agent
   * answers its own version. */
  readonly unsupported: number | null;
}

/** How the agent reports a session's foreground state (v2 `state_update`). */
export interface StateUpdates {
  readonly notification: string;
  readonly updateTag: string;
  readonly updateValue: string;
  readonly stateTag: string;
  readonly running: string;
  readonly idle: string;
  readonly requiresAction: string;
  readonly stopReason: string;
  readonly userMessage: string;
  readonly agentChunk: string;
  /** A user message chunk: one with the prompt's message id echoes it too. */
  readonly userChunk: string;
  /** The requests of the work that wait on the user (permissions, elicitations): while the work
   * awaits one, its state is `requiresAction`; `running` again once none is pending. */
  readonly userAction: readonly string[];
}

/** The prompt turn of an edition: which request, when it is answered, what cancels it. */
export interface PromptLifecycle {
  readonly prompt: string;
  /** `completion`: the answer ends the turn (v1); `insertion`: the answer acknowledges the
   * inserted message and state updates report the work (v2). */
  readonly answer: "completion" | "insertion";
  readonly cancel: string;
  readonly close: string | null;
  /** INSERTION: the prompt result's field holding the inserted message's id. */
  readonly messageId: string | null;
  readonly states: StateUpdates | null;
  readonly endTurn: string;
  readonly cancelled: string;
  /** The stop reason of work that failed, reported with the error (null: the edition reports
   * failures as errors, not stop reasons). */
  readonly failed: string | null;
  /** INSERTION: the prompt request's field naming one submission across attempts
   * (`idempotencyKey`): a retry carrying the key of an insertion the agent recorded is answered
   * with that insertion's message id and inserts nothing (null: the edition has none). */
  readonly retryKey: string | null;
}

/** Where an agent's `initialize` result advertises an optional method, and with what value. */
export interface Capability {
  readonly method: string;
  readonly path: readonly string[];
  readonly value: unknown;
  /** The methods the agent must serve for this to be advertised (v2's `capabilities.session`
   * promises the whole session baseline); `[method]` for one optional method. */
  readonly requires: readonly string[];
}

/** The `_meta` policy of an update type (`SessionInfoUpdate`). */
export interface MetaRule {
  readonly type: string;
  readonly policy: MetaPolicy;
  readonly alternatives: readonly MetaPolicy[];
}

/** A request that `$/cancel_request` ends with `result`, not -32800. */
export interface CancelOutcome {
  readonly method: string;
  readonly result: unknown;
}

/** A request cancelling one target of a session, answered `error` when the target is unknown,
 * final or not cancellable. */
export interface TargetCancel {
  readonly method: string;
  /** The params field naming the target (`toolCallId`). */
  readonly target: string;
  readonly error: number;
}

/**
 * ACP v1's feature-level cancellation (prompt-turn.mdx § Cancellation): `cancel` (a notification
 * with a `sessionId`) ends the session's in-flight `method` requests with `result`, never an
 * error. `received`: the side handling `method` receives `cancel` (the agent's prompt);
 * otherwise that side sends `cancel` and answers its own pending `method` handlers (the client's
 * permission requests).
 */
export interface TurnRule {
  readonly method: string;
  readonly cancel: string;
  readonly received: boolean;
  readonly result: unknown;
}

/** How `method` (`session/resume`) replays a session's history when a session store answers it
 * (session_resume.ts). `cursor` null: it never replays. Else the params' `cursor` names where
 * replay begins: omitted or null, nowhere; `{[cursorTag]: start}`, every retained update; any
 * other is answered `unsupported`. A replay ends with the `marker` update; `notHistory` are the
 * updates that are not history (never recorded, never replayed). */
export interface ResumeReplay {
  readonly method: string;
  readonly cursor: string | null;
  readonly cursorTag: string;
  readonly start: string;
  readonly unsupported: number;
  readonly marker: string;
  readonly notHistory: readonly string[];
}

/** Every behaviour rule of one edition. */
export interface Behaviour {
  readonly negotiation: Negotiation;
  /** Null where the schema has no prompt turn (a partial schema). */
  readonly lifecycle: PromptLifecycle | null;
  readonly capabilities: readonly Capability[];
  readonly meta: readonly MetaRule[];
  readonly cancelOutcomes: readonly CancelOutcome[];
  readonly targetCancels: readonly TargetCancel[];
  /** v1's turn rules, one per request it applies to (`turnRuleFor` picks a side's). */
  readonly turnRules: readonly TurnRule[];
  /** How a session store answers `session/resume` (null: it does not). */
  readonly resume: ResumeReplay | null;
}

/** The turn rule of the side handling `requests` (its request methods' names); null: none. */
export function turnRuleFor(behaviour: Behaviour, requests: Iterable<string>): TurnRule | null {
  const handled = new Set(requests);
  return behaviour.turnRules.find((rule) => handled.has(rule.method)) ?? null;
}

/** Valid `protocolVersion` values: ProtocolVersion is a uint16. */
function isVersion(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 0xffff;
}

/**
 * The offered negotiation that answers a client asking for `asked`: the highest version at or
 * below it (v2 InitializeResponse.protocolVersion: "The highest protocol version supported by
 * the agent that is at or below the version requested by the client. If no such version exists,
 * initialization fails with error code -32022."). When none fits and no offered edition defines
 * that error, the lowest is answered (v1 initialization.mdx: the Agent "MUST respond with the
 * latest protocol version it supports"). Throws the error to answer with otherwise.
 */
export function negotiate<N extends Negotiation>(asked: unknown, offered: readonly N[]): N {
  if (!isVersion(asked)) {
    throw new RequestError(-32602, "Invalid params", { details: "protocolVersion must be a uint16" });
  }
  const sorted = [...offered].sort((a, b) => a.version - b.version);
  const fits = sorted.filter((n) => n.version <= asked);
  const chosen = fits.at(-1);
  if (chosen !== undefined) return chosen;
  const code = sorted.map((n) => n.unsupported).find((c): c is number => c !== null);
  const lowest = sorted[0];
  if (code === undefined && lowest !== undefined) return lowest;
  throw new RequestError(code ?? -32602, "Unsupported protocol version", {
    requested: asked,
    supported: sorted.map((n) => n.version),
  });
}

/** ACP v2's "Unsupported protocol version" code; a client also rejects with it when the agent
 * answers `initialize` with another version (ACP v1 has no such code, and a v1 agent asked for 2
 * answers 1). */
export const UNSUPPORTED_VERSION = -32022;

/**
 * `decode` for the answer to the negotiation request (`initialize`), once its version field says
 * the client's `version`: an agent of another version fails with one `RequestError` -32022 naming
 * both versions (`data`: `{requested, answered}`), not with a field of this version's answer that
 * the other version's lacks.
 */
export function negotiatedAnswer(decode: Decoder, field: string, version: number): Decoder {
  return (value) => {
    const answered = isObject(value) ? value[field] : undefined;
    if (typeof answered === "number" && answered !== version) {
      const message = `Unsupported protocol version: the client asked for version ${version}, the agent answered ${answered}`;
      throw new RequestError(UNSUPPORTED_VERSION, message, { requested: version, answered });
    }
    return decode(value);
  };
}

/**
 * Rethrows `error`; an agent's -32022 answer to `initialize` (`data`: `{requested, supported}`)
 * with a message naming both, as `negotiatedAnswer` names them.
 */
export function namingVersions(error: unknown): never {
  if (error instanceof RequestError && error.code === UNSUPPORTED_VERSION && isObject(error.data)) {
    const { requested, supported } = error.data;
    if (Array.isArray(supported)) {
      const message = `Unsupported protocol version: the client asked for version ${String(requested)}, the agent supports ${supported.join(", ")}`;
      throw new RequestError(error.code, message, error.data);
    }
  }
  throw error;
}

type JsonObject = { [key: string]: unknown };

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `result` (an `initialize` answer) with its negotiated version, and each capability whose
 * required methods `handles` all (it serves them) advertised at the edition's own path where the answer leaves that path unset (a value
 * the handler wrote, `false` and `null` included, is kept). Never changes `result`.
 */
export function initializeAnswer(
  result: unknown,
  negotiation: Negotiation,
  capabilities: readonly Capability[],
  handles: (method: string) => boolean,
): unknown {
  const answer: JsonObject = isObject(result) ? structuredClone(result) : {};
  answer[negotiation.field] = negotiation.version;
  for (const capability of capabilities) {
    if (!capability.requires.every(handles)) continue;
    let node = answer;
    const path = capability.path;
    for (const [index, key] of path.entries()) {
      const last = index === path.length - 1;
      if (last) {
        if (!Object.hasOwn(node, key)) node[key] = structuredClone(capability.value);
        break;
      }
      if (!Object.hasOwn(node, key)) node[key] = {};
      else if (!isObject(node[key])) break; // the handler wrote something else there (null too): leave it
      node = node[key] as JsonObject;
    }
  }
  return answer;
}

/** The error a target cancel of a method nobody handles is answered with: the target in data
 * (CancelToolCallRequest: "The Agent responds with `-32602` if the tool call is unknown, already
 * final, or not cancellable"). */
export function targetNotCancellable(rule: TargetCancel, params: unknown): RequestError {
  const target = isObject(params) ? params[rule.target] : undefined;
  return new RequestError(rule.error, "Invalid params", {
    [rule.target]: target ?? null,
    details: "unknown, already final, or not cancellable",
  });
}
