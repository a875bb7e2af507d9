// Test support: a v1 agent and client connected in memory, and a raw peer that speaks frames.
import { RequestError, memoryPair, type ConnectionOptions, type Router, type Transport } from "../src/index.js";
import * as v1 from "../src/v1/index.js";

export function connected(
  agent: v1.Agent,
  client: v1.Client,
  options: ConnectionOptions = {},
): { agentSide: v1.AgentConnection; clientSide: v1.ClientConnection } {
  const [left, right] = memoryPair();
  return { agentSide: v1.connectAgent(agent, left, options), clientSide: v1.connectClient(client, right, options) };
}

/** The other end of a transport, driven frame by frame. */
export class RawPeer {
  readonly frames: Array<Record<string, unknown>> = [];
  private waiters: Array<() => void> = [];

  constructor(private readonly transport: Transport) {
    transport.start(
      (frame) => {
        this.frames.push(JSON.parse(frame) as Record<string, unknown>);
        for (const wake of this.waiters.splice(0)) wake();
      },
      () => undefined,
    );
  }

  send(frame: unknown): void {
    void this.transport.write(typeof frame === "string" ? frame : JSON.stringify(frame));
  }

  /** The first frame (in arrival order) that `match`es, waiting for it. */
  async next(match: (frame: Record<string, unknown>) => boolean, timeout = 2000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeout;
    for (;;) {
      const found = this.frames.find(match);
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`no such frame; got ${JSON.stringify(this.frames)}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }
}

export function agentWithRawClient(agent: v1.Agent, options: ConnectionOptions = {}): { connection: v1.AgentConnection; peer: RawPeer } {
  const [left, right] = memoryPair();
  return { connection: v1.connectAgent(agent, left, options), peer: new RawPeer(right) };
}

/** Resolves once `signal` aborts. */
export function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

export async function until(predicate: () => boolean, timeout = 2000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export function chunk(sessionId: string, text: string): v1.SessionNotification {
  return { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } };
}

export function textOf(prompt: v1.ContentBlock[]): string {
  return prompt.map((block) => (block.type === "text" ? block.text : "")).join("");
}

/** The `RequestError` `promise` rejects with (fails the test if it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<RequestError> {
  try {
    await promise;
  } catch (error) {
    if (!(error instanceof RequestError)) throw error;
    return error;
  }
  throw new Error("the request did not fail");
}

/** A router that answers every request `null` and ignores notifications (transport tests). */
export const quietRouter: Router = {
  async request() {
    return null;
  },
  received() {},
  async notification() {},
  cancelledResult() {
    return undefined;
  },
};
