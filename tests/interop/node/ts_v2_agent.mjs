// An ACP v2 (draft) agent built on the official TypeScript SDK's experimental v2 API
// (@agentclientprotocol/sdk 2.4.0, `@agentclientprotocol/sdk/experimental/v2`), serving on stdio
// (NDJSON). The v2 interop tests spawn it and drive it with a v2 client; ts_router_agent.mjs reuses
// `buildV2Agent()` behind the SDK's AgentProtocolRouter.
//
// It follows the v2 prompt lifecycle as schema/v2/schema.json describes it:
//   session/prompt  answered at INSERTION with a `messageId` ("Response acknowledging that a user
//                   prompt was inserted into the ACP conversation"), then, after the answer:
//                   `user_message` echoing it, `state_update` running, one `agent_message_chunk`
//                   per word of the prompt (ACP_V2_WORD_DELAY_MS apart, default 30, standing for
//                   model work), `state_update` idle with stopReason "end_turn".
//   "permission"    in the prompt text: `requires_action`, then `session/request_permission` (two
//                   options) before streaming; "allow" resumes (`running`), the `cancelled`
//                   outcome ends the work with idle "cancelled", any other answer streams nothing
//                   and ends with idle "end_turn".
//   "title"         in the prompt text: two `session_info_update`s whose `_meta` patches leave
//                   `{"nested": {"b": 2}}` under v2's top-level patch rule.
// A prompt that arrives while work runs is HELD (the SDK lets the agent choose: "The agent
// inserts it right away or holds it and inserts it later, in the order received") and inserted,
// in order, when the running work has ended; `$/cancel_request` withdraws a held prompt (-32800).
//
// The SDK does by itself: version negotiation (an `initialize` asking < 2 gets -32022, one asking
// > 2 reaches the handler as 2), rejecting requests before `initialize` (-32600), params
// validation (-32602), `tool_call/cancel` and `terminal/cancel` answered -32602 when no handler is
// registered (as here: this agent has no cancellable tool call or terminal), `$/cancel_request`
// aborting the handler's `ctx.signal`, and sending `$/cancel_request` when the
// `cancellationSignal` of an outgoing request aborts. It sends no session update by itself:
// every `user_message` / `state_update` below is this script's.
//
// Nothing but protocol goes to stdout; diagnostics go to stderr.
import { realpathSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import * as acp from "@agentclientprotocol/sdk/experimental/v2";

export const AGENT_NAME = "ts-v2-agent";
const AGENT_VERSION = "2.4.0";
const WORD_DELAY_MS = Number(process.env.ACP_V2_WORD_DELAY_MS ?? 30);

/** The options of the permission request: the first approves, the second does not. */
const PERMISSION_OPTIONS = [
  { optionId: "allow", name: "Allow", kind: "allow_once" },
  { optionId: "reject", name: "Reject", kind: "reject_once" },
];

function log(...args) {
  console.error(`[${AGENT_NAME}]`, ...args);
}

/** Resolves after `ms`; rejects with the signal's reason as soon as `signal` aborts. */
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * v2's metadata patch rule (SessionInfoUpdate._meta): "Omitted leaves the stored metadata
 * unchanged. `null` clears it. An object patches the stored metadata by top-level key: keys it
 * omits are unchanged, a key set to `null` is removed, and any other value replaces that key's
 * stored value without merging nested objects."
 */
export function applyMetaPatch(stored, patch) {
  if (patch === undefined) return stored;
  if (patch === null) return null;
  const next = { ...(stored ?? {}) };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}

function promptText(prompt) {
  return prompt
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join(" ");
}

/**
 * A fresh v2 agent app with its own sessions. Each call gives an independent agent, for one
 * connection (stdio here, or a route of AgentProtocolRouter).
 */
export function buildV2Agent() {
  /**
   * sessionId -> {
   *   sessionId, cwd, title, meta,  // what session/list reports and session_info_update patches
   *   active,                       // false after session/close (until session/resume)
   *   work,                         // the foreground work running, or null
   *   held: [],                     // prompts received while work runs, not yet inserted
   *   userMessages, agentMessages,  // counters for message IDs (one ID space per type)
   *   lastStopReason,
   *   client,                       // AgentContext to reach the client outside a request handler
   * }
   */
  const sessions = new Map();
  let nextSession = 1;

  function activeSession(sessionId) {
    const session = sessions.get(sessionId);
    // RequestError.sessionNotFound: "The session named by a session-scoped request does not
    // exist or is not active on this connection" (-32002 with data.sessionId).
    if (!session || !session.active) throw acp.RequestError.sessionNotFound(sessionId);
    return session;
  }

  function update(session, sessionUpdate) {
    return session.client.notify(acp.methods.client.session.update, {
      sessionId: session.sessionId,
      update: sessionUpdate,
    });
  }

  /**
   * Inserts the prompt into the conversation and starts its foreground work; returns the
   * `PromptResponse`. The work's first update is sent on a later macrotask, after the SDK has
   * queued this answer: the answer acknowledges insertion, then the `user_message` echoes it
   * (PromptResponse.messageId: "The corresponding user-message session update carries this same
   * identifier and may arrive before or after this response").
   */
  function insert(session, params) {
    const messageId = `user-${++session.userMessages}`;
    const work = { abort: new AbortController(), finished: null };
    session.work = work;
    work.finished = new Promise((resolve) => setImmediate(resolve))
      .then(() => runWork(session, work, params.prompt, messageId))
      .catch((error) => log("work failed:", error))
      .finally(() => {
        session.work = null;
        insertNextHeld(session);
      });
    return { messageId };
  }

  /** Held prompts are inserted "later, in the order received", once the work has ended. */
  function insertNextHeld(session) {
    if (session.work || !session.active) return;
    const held = session.held.shift();
    if (held) held.resolve(insert(session, held.params));
  }

  /**
   * One prompt's foreground work. StateUpdate: "the agent MUST report `running` when foreground
   * work starts ... and `idle` when it ends. The agent SHOULD include a stop reason on that idle
   * update."
   */
  async function runWork(session, work, prompt, messageId) {
    const signal = work.abort.signal;
    const text = promptText(prompt);
    let stopReason = "end_turn";
    try {
      // UserMessage: "Agents can send this when they accept or replay a user message."
      await update(session, { sessionUpdate: "user_message", messageId, content: prompt });
      await update(session, { sessionUpdate: "state_update", state: "running" });
      signal.throwIfAborted(); // cancelled between insertion and start: ask nothing, stream nothing

      if (/\btitle\b/i.test(text)) await sendTitle(session, text);

      if (/\bpermission\b/i.test(text)) {
        const decision = await askPermission(session, work);
        if (decision !== "allow") {
          // RequestPermissionOutcome `cancelled`: "Agents MUST NOT proceed with the operation."
          stopReason = decision === "cancelled" ? "cancelled" : "end_turn";
          return;
        }
      }

      const agentMessageId = `agent-${++session.agentMessages}`;
      const words = text.split(/\s+/).filter(Boolean);
      for (const [index, word] of words.entries()) {
        signal.throwIfAborted(); // after session/cancel: no more chunks
        await update(session, {
          sessionUpdate: "agent_message_chunk",
          messageId: agentMessageId,
          content: { type: "text", text: index < words.length - 1 ? `${word} ` : word },
        });
        await sleep(WORD_DELAY_MS, signal); // stands for model work
      }
    } catch (error) {
      // Stop reason `cancelled`: "Agents MUST report this stop reason on an idle `state_update`
      // when cancellation ends active foreground work, even if aborting causes exceptions.
      // Agents MUST catch these errors and report `cancelled`, not `error`."
      if (signal.aborted) {
        stopReason = "cancelled";
      } else {
        log("prompt work failed:", error);
        stopReason = "error";
      }
    } finally {
      session.lastStopReason = stopReason;
      await update(session, { sessionUpdate: "state_update", state: "idle", stopReason }).catch(
        (error) => log("could not send the idle update:", error?.message ?? error),
      );
    }
  }

  /**
   * SessionInfoUpdate: "Omitted fields leave the existing session info unchanged. `null` clears
   * the corresponding value. A concrete `_meta` object patches the stored metadata by top-level
   * key." The second patch removes `keep` and replaces `nested` whole: a client following the
   * rule ends with `{"nested": {"b": 2}}`.
   */
  async function sendTitle(session, title) {
    const patches = [
      { title, _meta: { keep: 1, nested: { a: 1 } } },
      { _meta: { keep: null, nested: { b: 2 } } },
    ];
    for (const patch of patches) {
      if ("title" in patch) session.title = patch.title;
      session.meta = applyMetaPatch(session.meta, patch._meta);
      await update(session, { sessionUpdate: "session_info_update", ...patch });
    }
  }

  /**
   * Asks the client; returns "allow", "cancelled" or "not_approved". RequiresActionStateUpdate:
   * "Agents SHOULD report this state when foreground work cannot progress without user action
   * ... Once reported, agents MUST report `running` when progress resumes, or `idle` if the
   * work ends without resuming."
   *
   * The request carries the work's abort signal with `stopWaitingOnCancel`: on session/cancel or
   * session/close the SDK sends `$/cancel_request` for it and rejects right away with -32800
   * (the d.ts of `session/cancel`: "Stop waiting on the pending `session/request_permission`
   * requests of the cancelled foreground work, treat them as not approved, and cancel each with
   * `$/cancel_request`").
   */
  async function askPermission(session, work) {
    await update(session, { sessionUpdate: "state_update", state: "requires_action" });
    const response = await session.client.request(
      acp.methods.client.session.requestPermission,
      {
        sessionId: session.sessionId,
        title: "Echo the prompt back?",
        description: "The prompt asked for permission before the agent streams it back.",
        options: PERMISSION_OPTIONS,
      },
      { cancellationSignal: work.abort.signal, stopWaitingOnCancel: true },
    );
    const { outcome } = response;
    if (outcome.outcome === "cancelled") return "cancelled";
    // "If `optionId` doesn't match an offered option, the agent MUST treat the request as not
    // approved"; an unknown outcome "MUST NOT [be treated] as approval".
    if (outcome.outcome === "selected" && outcome.optionId === "allow") {
      await update(session, { sessionUpdate: "state_update", state: "running" });
      return "allow";
    }
    return "not_approved";
  }

  /**
   * CancelSessionNotification: "cancel a session's foreground work and its prompts not yet
   * inserted." Held prompts are answered -32800 first (so none is inserted when the work ends),
   * then the work is aborted: it stops streaming, its pending permission request gets
   * `$/cancel_request`, and it sends idle "cancelled". Resolves once that idle update is sent.
   */
  async function cancelForeground(session, reason) {
    for (const held of session.held.splice(0)) {
      held.reject(acp.RequestError.requestCancelled(undefined, `held prompt cancelled by ${reason}`));
    }
    const work = session.work;
    if (work) {
      work.abort.abort(acp.RequestError.requestCancelled(undefined, reason));
      await work.finished;
    }
  }

  return (
    acp
      .agent({ name: AGENT_NAME })
      .onConnect((connection) => {
        // The connection is gone: stop all work so no timer keeps the process alive.
        connection.signal.addEventListener("abort", () => {
          for (const session of sessions.values()) {
            session.held.splice(0);
            session.work?.abort.abort(new Error("connection closed"));
          }
        });
      })
      // InitializeResponse.protocolVersion: "The highest protocol version supported by the agent
      // that is at or below the version requested by the client." The SDK answers a request
      // below 2 with -32022 and hands a request above 2 to this handler as 2, so it is always 2.
      .onRequest(acp.methods.agent.initialize, async () => ({
        protocolVersion: acp.PROTOCOL_VERSION,
        info: { name: AGENT_NAME, version: AGENT_VERSION },
        // AgentCapabilities.session: "Supplying `{}` means the agent supports the baseline session
        // methods: `session/new`, `session/list`, `session/resume`, `session/close`,
        // `session/prompt`, `session/cancel`, and `session/update`."
        capabilities: { session: {} },
      }))
      .onRequest(acp.methods.agent.session.new, async (ctx) => {
        const sessionId = `ts-v2-${nextSession++}`;
        sessions.set(sessionId, {
          sessionId,
          cwd: ctx.params.cwd,
          title: null,
          meta: null,
          active: true,
          work: null,
          held: [],
          userMessages: 0,
          agentMessages: 0,
          lastStopReason: null,
          client: ctx.client,
        });
        // NewSessionResponse: "New sessions default to `idle` until a state update reports
        // otherwise."
        return { sessionId };
      })
      // ListSessionsRequest.cwd: "Only sessions whose `cwd` is this same directory match."
      // Closed sessions stay listed: they can be resumed. One page, no cursor.
      .onRequest(acp.methods.agent.session.list, async (ctx) => ({
        sessions: [...sessions.values()]
          .filter((session) => ctx.params.cwd == null || session.cwd === ctx.params.cwd)
          .map(({ sessionId, cwd, title }) => ({
            sessionId,
            cwd,
            ...(title != null ? { title } : {}),
          })),
      }))
      .onRequest(acp.methods.agent.session.prompt, async (ctx) => {
        const session = activeSession(ctx.params.sessionId);
        // The SDK applies `$/cancel_request` as it arrives, possibly before this handler runs: a
        // prompt withdrawn already is not inserted.
        if (ctx.signal.aborted) throw ctx.signal.reason;
        if (!session.work) return insert(session, ctx.params);
        // Work is running: hold the prompt until it ends. The handler stays pending; the answer
        // (its messageId) goes out when it is inserted. `$/cancel_request` withdraws it ("Aborting
        // `options.cancellationSignal` withdraws a held prompt").
        return new Promise((resolve, reject) => {
          const held = { params: ctx.params, resolve, reject };
          const withdraw = () => {
            const index = session.held.indexOf(held);
            if (index >= 0) session.held.splice(index, 1);
            reject(ctx.signal.reason); // RequestError -32800 {requestId}
          };
          held.resolve = (response) => {
            ctx.signal.removeEventListener("abort", withdraw);
            resolve(response);
          };
          held.reject = (error) => {
            ctx.signal.removeEventListener("abort", withdraw);
            reject(error);
          };
          session.held.push(held);
          ctx.signal.addEventListener("abort", withdraw, { once: true });
        });
      })
      .onNotification(acp.methods.agent.session.cancel, async (ctx) => {
        const session = sessions.get(ctx.params.sessionId);
        if (session) await cancelForeground(session, "session/cancel");
      })
      // CloseSessionRequest: "The Agent MUST cancel any ongoing work related to the session as if
      // `session/cancel` was called ... When closing cancels active foreground work, the Agent MUST
      // send the final updates for that work and the idle `state_update` with `stopReason:
      // \"cancelled\"` before responding successfully to `session/close`." And: "Closing a
      // session that does not exist or is not active SHOULD succeed".
      .onRequest(acp.methods.agent.session.close, async (ctx) => {
        const session = sessions.get(ctx.params.sessionId);
        if (!session || !session.active) return {};
        session.active = false; // no prompt is inserted from here on
        await cancelForeground(session, "session/close");
        return {};
      })
      // ResumeSessionResponse: "The agent MUST send a current `state_update` after any requested
      // history replay and before this response, even without replay." This agent retains no
      // history ("Agents must echo the message during the live session, but are not required to
      // retain it"), so `{"type": "start"}` replays nothing; other cursors get -32602.
      .onRequest(acp.methods.agent.session.resume, async (ctx) => {
        const session = sessions.get(ctx.params.sessionId);
        if (!session) throw acp.RequestError.sessionNotFound(ctx.params.sessionId);
        const replayFrom = ctx.params.replayFrom;
        if (replayFrom != null && replayFrom.type !== "start") {
          throw acp.RequestError.invalidParams({ replayFrom }, "unsupported replay cursor");
        }
        session.active = true;
        session.client = ctx.client;
        await update(
          session,
          session.work
            ? { sessionUpdate: "state_update", state: "running" }
            : {
                sessionUpdate: "state_update",
                state: "idle",
                // "Repeated or resume snapshots may carry the last stop reason for context."
                ...(session.lastStopReason ? { stopReason: session.lastStopReason } : {}),
              },
        );
        return {};
      })
  );
  // `tool_call/cancel` and `terminal/cancel` are not registered: the SDK answers them -32602 ("the
  // tool call is unknown or not cancellable"), which is what CancelToolCallRequest asks for an
  // unknown target. `session/delete` is not advertised (no `session.delete`): -32601.
}

async function main() {
  const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
  await buildV2Agent().connect(stream).closed;
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  await main();
}
