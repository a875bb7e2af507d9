// Test support for the v2 behaviour tests: a v2 agent whose foreground work streams a prompt's
// words, connected in memory to a raw peer (frames in arrival order) or to a v2 client.
import { memoryPair, type ConnectionOptions } from "../src/index.js";
import * as v2 from "../src/v2/index.js";
import { RawPeer, aborted } from "./support.js";

export const SESSION = "v2-s1";

export function text(value: string): v2.ContentBlock[] {
  return [{ type: "text", text: value }];
}

export function words(prompt: v2.ContentBlock[]): string[] {
  return prompt.flatMap((block) => (block.type === "text" ? block.text.split(/\s+/).filter(Boolean) : []));
}

/** Every word of the prompt, one `agent_message_chunk` each; "wait" in the prompt: then waits
 * until the work's signal aborts and throws its reason; "ask": asks the client for permission
 * first and ends with the outcome's name as the stop reason when it is not `selected`. */
export const wordAgent: v2.Agent = {
  async initialize() {
    return { protocolVersion: 2, info: { name: "v2-word-agent", version: "0" } };
  },
  async sessionNew() {
    return { sessionId: SESSION };
  },
  async sessionPrompt(params, ctx) {
    const all = words(params.prompt);
    if (all.includes("ask")) {
      const answer = await ctx.client.sessionRequestPermission({
        sessionId: ctx.sessionId,
        title: "go on?",
        options: [{ optionId: "yes", name: "Yes", kind: "allow_once" }],
      });
      if (answer.outcome.outcome !== "selected") return answer.outcome.outcome;
    }
    for (const word of all) {
      await ctx.client.sessionUpdate({ sessionId: ctx.sessionId, update: { sessionUpdate: "agent_message_chunk", messageId: `a-${ctx.messageId}`, content: { type: "text", text: word } } });
    }
    if (all.includes("wait")) {
      await aborted(ctx.signal);
      throw ctx.signal.reason;
    }
    return undefined;
  },
};

export function agentWithRawClient(agent: v2.Agent, options: ConnectionOptions = {}): { connection: v2.AgentConnection; peer: RawPeer } {
  const [left, right] = memoryPair();
  return { connection: v2.connectAgent(agent, left, options), peer: new RawPeer(right) };
}

export function connectedV2(agent: v2.Agent, client: v2.Client): { agentSide: v2.AgentConnection; clientSide: v2.ClientConnection } {
  const [left, right] = memoryPair();
  return { agentSide: v2.connectAgent(agent, left), clientSide: v2.connectClient(client, right) };
}

type Frame = Record<string, unknown>;

/** The `session/update` frames' updates, in arrival order. */
export function updates(frames: Frame[]): Array<Record<string, unknown>> {
  return frames
    .filter((f) => f["method"] === "session/update")
    .map((f) => (f["params"] as { update: Record<string, unknown> }).update);
}

/** A short label per frame: `update:<sessionUpdate>[:state[:stopReason]]`, `answer:<id>`, `error:<id>:<code>`, or the method. */
export function labels(frames: Frame[]): string[] {
  return frames.map((f) => {
    if (f["method"] === "session/update") {
      const u = (f["params"] as { update: Record<string, unknown> }).update;
      return ["update", u["sessionUpdate"], u["state"], u["stopReason"]].filter((p) => p !== undefined).join(":");
    }
    if (typeof f["method"] === "string") return String(f["method"]);
    if (f["error"] !== undefined) return `error:${String(f["id"])}:${String((f["error"] as { code: number }).code)}`;
    return `answer:${String(f["id"])}`;
  });
}

export function prompt(peer: RawPeer, id: number, value: string): void {
  peer.send({ jsonrpc: "2.0", id, method: "session/prompt", params: { sessionId: SESSION, prompt: text(value) } });
}
