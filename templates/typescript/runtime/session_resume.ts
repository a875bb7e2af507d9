/**
 * What a session store sends for `session/resume` where the edition's resume replays from a
 * cursor the client names (ACP v2), as pure functions of the edition's rule (`ResumeReplay`).
 * Layer: typed layer (what session_replay.ts sends; the store corpus runs the same functions).
 * The same rules as the Python runtime's session_resume.py and the Go one's session_resume.go.
 *
 * The rule's text (v2 schema, `ResumeSessionRequest.replayFrom`): "Omitted and `null` are
 * equivalent, and the Agent MUST NOT replay previous conversation history. [...] Supplying
 * `{ "type": "start" }` means the Agent MUST replay all retained conversation history before
 * responding. Agents MUST reject unsupported cursor types or malformed cursor values with
 * `-32602` (Invalid params), rather than substituting another cursor or resuming without
 * replay." The store keeps no position but the start, so every other cursor is unsupported.
 *
 * `ReplayComplete`: "The Agent MUST send this exactly once on a session for each `session/resume`
 * request with a `replayFrom` cursor, after the last replayed update for that session and before
 * the response, even for an empty replay." What is not history (`notHistory`: the state updates,
 * "Resume MUST send a current-state snapshot after any replay"; notices, "not part of session
 * history") is neither recorded nor replayed.
 */

import type { ResumeReplay, StateUpdates } from "./behaviour.js";
import { RequestError } from "./errors.js";

/** Whether the resume request (its params) asks for a replay; a `RequestError` (the rule's code)
 * for a cursor the store cannot serve. */
export function replayWanted(rule: ResumeReplay, params: unknown): boolean {
  if (rule.cursor === null) return false;
  const cursor = (params as { [key: string]: unknown } | null)?.[rule.cursor];
  if (cursor === undefined || cursor === null) return false; // "Omitted and `null` are equivalent": no replay
  const tag = typeof cursor === "object" && !Array.isArray(cursor) ? (cursor as { [key: string]: unknown })[rule.cursorTag] : undefined;
  if (tag === rule.start) return true;
  throw new RequestError(rule.unsupported, `unsupported ${rule.cursor}: the session store replays from {"${rule.cursorTag}": "${rule.start}"} only`, {
    [rule.cursor]: cursor,
    supported: [{ [rule.cursorTag]: rule.start }],
    type: tag ?? null,
  });
}

/** Whether a session update is part of the history a replay sends (`notHistory` aside). */
export function isHistory(rule: ResumeReplay | null, update: unknown): boolean {
  if (rule === null || rule.notHistory.length === 0 || typeof update !== "object" || update === null) return true;
  return !rule.notHistory.includes((update as { sessionUpdate?: unknown }).sessionUpdate as string);
}

/** The updates a replay from the start sends: the retained history, then the marker. */
export function replayed(rule: ResumeReplay, updates: readonly unknown[]): unknown[] {
  return [...updates.filter((update) => isHistory(rule, update)), { sessionUpdate: rule.marker }];
}

/** The current `state_update` a resume sends after any replay and before its response
 * (`ResumeSessionResponse`: "The Agent MUST send a current `state_update` after any requested
 * history replay and before this response, even without replay"). */
export function stateSnapshot(states: StateUpdates, state: string): { [key: string]: unknown } {
  return { [states.updateTag]: states.updateValue, [states.stateTag]: state };
}
