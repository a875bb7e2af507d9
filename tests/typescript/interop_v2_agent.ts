// An ACP v2 agent built on the generated TypeScript package, serving on stdio, for the v2 interop
// tests: it behaves like tests/interop/node/ts_v2_agent.mjs (the official SDK's), so the same v2
// client drives both. The SDK answers session/prompt at insertion, sends `user_message`,
// `running` and the closing `idle`, reports `requires_action` while the work awaits a permission
// (`running` once answered), holds prompts while work runs, and acts on session/cancel and
// session/close; this file only writes the work (`sessionPrompt`):
//   every word of the prompt: one agent_message_chunk (ACP_V2_WORD_DELAY_MS apart, default 30);
//   "permission" in the prompt: session/request_permission first; "allow" goes on, `cancelled`
//                ends the work cancelled, anything else ends it;
//   "title" in the prompt: two session_info_updates whose `_meta` patches leave
//                `{"nested": {"b": 2}}` under v2's top-level patch rule.
import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { EMPTY_SESSION_INFO, type SessionInfo } from "../src/index.js";
import * as v2 from "../src/v2/index.js";
import { builders } from "../src/v2/index.js";

const NAME = "acp-codegen-ts-v2-interop-agent";
const WORD_DELAY_MS = Number(process.env["ACP_V2_WORD_DELAY_MS"] ?? 30);
const { sessionUpdate } = builders;

/** Resolves after `ms`; rejects with the signal's reason once it aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    const stop = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", stop, { once: true });
  });
}

interface Stored {
  readonly cwd: string;
  info: SessionInfo;
}

const sessions = new Map<string, Stored>();

function textOf(prompt: v2.ContentBlock[]): string {
  return prompt.map((block) => (block.type === "text" ? block.text : "")).join(" ");
}

/** The agent (also served by interop_dual_agent.ts). */
export const v2Agent: v2.Agent = {
  async initialize() {
    // The SDK sets the negotiated protocolVersion and advertises `capabilities.session` (this
    // agent serves the whole session baseline: session/close and session/cancel are the SDK's).
    return { protocolVersion: v2.PROTOCOL_VERSION, info: { name: NAME, version: "0" } };
  },
  async sessionNew(params) {
    const sessionId = `ours-v2-${sessions.size + 1}`;
    sessions.set(sessionId, { cwd: params.cwd, info: EMPTY_SESSION_INFO });
    return { sessionId };
  },
  async sessionResume() {
    return {};
  },
  async sessionList(params) {
    const listed = [...sessions.entries()].filter(([, s]) => params.cwd == null || s.cwd === params.cwd);
    return {
      sessions: listed.map(([sessionId, s]) => ({ sessionId, cwd: s.cwd, ...(s.info.title !== null ? { title: s.info.title } : {}) })),
    };
  },
  async sessionPrompt(params, ctx) {
    const { sessionId, signal } = ctx;
    const send = (update: v2.SessionUpdate): Promise<void> => ctx.client.sessionUpdate({ sessionId, update });
    const text = textOf(params.prompt);
    if (/\btitle\b/i.test(text)) {
      const stored = sessions.get(sessionId);
      for (const patch of [
        sessionUpdate.sessionInfoUpdate({ title: text, _meta: { keep: 1, nested: { a: 1 } } }),
        sessionUpdate.sessionInfoUpdate({ _meta: { keep: null, nested: { b: 2 } } }),
      ]) {
        if (stored !== undefined) stored.info = v2.applySessionInfoUpdate(stored.info, patch);
        await send(patch);
      }
    }
    if (/\bpermission\b/i.test(text)) {
      const answer = await ctx.client.sessionRequestPermission({
        sessionId,
        title: "Echo the prompt back?",
        options: [
          { optionId: "allow", name: "Allow", kind: "allow_once" },
          { optionId: "reject", name: "Reject", kind: "reject_once" },
        ],
      });
      const outcome = answer.outcome;
      if (outcome.outcome === "cancelled") return "cancelled";
      if (outcome.outcome !== "selected" || outcome.optionId !== "allow") return "end_turn";
    }
    const words = text.split(/\s+/).filter(Boolean);
    const messageId = `agent-${ctx.messageId}`;
    for (const [index, word] of words.entries()) {
      signal.throwIfAborted();
      const chunk = index < words.length - 1 ? `${word} ` : word;
      await send(sessionUpdate.agentMessageChunk({ messageId, content: { type: "text", text: chunk } }));
      await sleep(WORD_DELAY_MS, signal);
    }
    return "end_turn";
  },
};

const main = process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
if (main) await v2.runAgent(v2Agent);
