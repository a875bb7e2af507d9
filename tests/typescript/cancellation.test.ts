// Cancellation through the generated v1 typed layer, agent and client in memory (ACP
// cancellation.mdx, prompt-turn.mdx § Cancellation).
import assert from "node:assert/strict";
import { test } from "node:test";
import { REQUEST_CANCELLED, RequestError } from "../src/index.js";
import type * as v1 from "../src/v1/index.js";
import { aborted, agentWithRawClient, chunk, connected, rejection, textOf, until } from "./support.js";

const SESSION = "s-1";

function prompt(text: string): v1.PromptRequest {
  return { sessionId: SESSION, prompt: [{ type: "text", text }] };
}

/** A slow prompt: one chunk, then it waits until its signal aborts and throws. */
const slowAgent: v1.Agent = {
  async sessionPrompt(params, ctx) {
    await ctx.client.sessionUpdate(chunk(params.sessionId, "working"));
    await aborted(ctx.signal);
    throw ctx.signal.reason;
  },
};

function recordingClient(): v1.Client & { chunks: string[] } {
  const chunks: string[] = [];
  return {
    chunks,
    async sessionUpdate(params) {
      const update = params.update;
      if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") chunks.push(update.content.text);
    },
  };
}

test("a prompt streams its updates before its answer", async () => {
  const client = recordingClient();
  const { clientSide } = connected(
    {
      async sessionPrompt(params, ctx) {
        for (const part of ["one ", "two ", "three"]) await ctx.client.sessionUpdate(chunk(params.sessionId, part));
        return { stopReason: "end_turn" };
      },
    },
    client,
  );
  const response = await clientSide.agent.sessionPrompt(prompt("stream"));
  assert.deepEqual(response, { stopReason: "end_turn" });
  assert.deepEqual(client.chunks, ["one ", "two ", "three"]);
});

test("cancel_request on a slow prompt is answered -32800 with the request id", async () => {
  // The receiver "MUST send one of these responses for the original request: … An error response
  // with code -32800 (Request Cancelled)".
  const client = recordingClient();
  const { clientSide } = connected(slowAgent, client);
  const controller = new AbortController();
  const call = clientSide.agent.sessionPrompt(prompt("slow"), { signal: controller.signal });
  await until(() => client.chunks.length > 0);
  controller.abort();
  const error = await rejection(call);
  assert.equal(error.code, REQUEST_CANCELLED);
  assert.deepEqual(error.data, { requestId: 0 });
});

test("a cancelled handler that returns a partial result is answered with it", async () => {
  // "A valid response with appropriate data (such as partial results or cancellation marker)".
  const client = recordingClient();
  const { clientSide } = connected(
    {
      async sessionPrompt(params, ctx) {
        await ctx.client.sessionUpdate(chunk(params.sessionId, "working"));
        await aborted(ctx.signal);
        return { stopReason: "cancelled" };
      },
    },
    client,
  );
  const controller = new AbortController();
  const call = clientSide.agent.sessionPrompt(prompt("slow"), { signal: controller.signal });
  await until(() => client.chunks.length > 0);
  controller.abort();
  assert.deepEqual(await call, { stopReason: "cancelled" });
});

test("stopWaitingOnCancel rejects at once and the late answer is dropped", async () => {
  const client = recordingClient();
  const problems: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const { agentSide, clientSide } = connected(
    {
      async sessionPrompt(params, ctx) {
        if (textOf(params.prompt) === "slow") {
          await ctx.client.sessionUpdate(chunk(params.sessionId, "working"));
          await held; // ignores the cancel
        }
        return { stopReason: "end_turn" };
      },
    },
    client,
    { onProblem: (problem) => problems.push(problem) },
  );
  const controller = new AbortController();
  const call = clientSide.agent.sessionPrompt(prompt("slow"), { signal: controller.signal, stopWaitingOnCancel: true });
  await until(() => client.chunks.length > 0);
  controller.abort();
  assert.equal((await rejection(call)).code, REQUEST_CANCELLED);
  release();
  // The connection still works, and the late answer was matched and dropped.
  assert.deepEqual(await clientSide.agent.sessionPrompt(prompt("again")), { stopReason: "end_turn" });
  assert.deepEqual(problems, []);
  await agentSide.close();
});

test("session/cancel ends the session's prompt with stopReason cancelled, never an error", async () => {
  // prompt-turn.mdx: the Agent "MUST respond to the original session/prompt request with the
  // cancelled stop reason".
  const client = recordingClient();
  const { clientSide } = connected(slowAgent, client);
  const call = clientSide.agent.sessionPrompt(prompt("slow"));
  await until(() => client.chunks.length > 0);
  await clientSide.agent.sessionCancel({ sessionId: SESSION });
  assert.deepEqual(await call, { stopReason: "cancelled" });
});

test("cancelling a prompt cascades to the request its handler made", async () => {
  // cancellation.mdx: "MAY cancel the corresponding request activity and all nested activities".
  const seen: { read: string[]; aborted: string[] } = { read: [], aborted: [] };
  const { clientSide } = connected(
    {
      async sessionPrompt(params, ctx) {
        await ctx.client.fsReadTextFile({ sessionId: params.sessionId, path: "/held.txt" });
        return { stopReason: "end_turn" };
      },
    },
    {
      async fsReadTextFile(params, ctx) {
        seen.read.push(params.path);
        await aborted(ctx.signal);
        seen.aborted.push(params.path);
        throw ctx.signal.reason;
      },
    },
  );
  const controller = new AbortController();
  const call = clientSide.agent.sessionPrompt(prompt("nested"), { signal: controller.signal });
  await until(() => seen.read.length > 0);
  controller.abort();
  assert.equal((await rejection(call)).code, REQUEST_CANCELLED);
  assert.deepEqual(seen.aborted, ["/held.txt"]);
});

test("sending session/cancel answers the client's pending permission requests cancelled", async () => {
  // prompt-turn.mdx: the Client "MUST respond to all pending session/request_permission requests
  // with the cancelled outcome".
  let asked = false;
  const { clientSide } = connected(
    {
      async sessionPrompt(params, ctx) {
        const answer = await ctx.client.sessionRequestPermission({
          sessionId: params.sessionId,
          toolCall: { toolCallId: "t-1" },
          options: [{ optionId: "ok", name: "Allow", kind: "allow_once" }],
        });
        return { stopReason: answer.outcome.outcome === "cancelled" ? "cancelled" : "end_turn" };
      },
    },
    {
      async sessionRequestPermission(_params, ctx) {
        asked = true;
        await aborted(ctx.signal);
        throw ctx.signal.reason;
      },
    },
  );
  const call = clientSide.agent.sessionPrompt(prompt("ask"));
  await until(() => asked);
  await clientSide.agent.sessionCancel({ sessionId: SESSION });
  assert.deepEqual(await call, { stopReason: "cancelled" });
});

test("a cancel_request for a finished or unknown request is ignored: nothing is answered", async () => {
  // RFD FAQ: "Ignore the subsequent cancellation notification for that request ID".
  const { peer } = agentWithRawClient({ async sessionPrompt() { return { stopReason: "end_turn" }; } });
  peer.send({ jsonrpc: "2.0", id: 1, method: "session/prompt", params: prompt("x") });
  await peer.next((f) => f.id === 1);
  peer.send({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 1 } });
  peer.send({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: "never-sent" } });
  peer.send({ jsonrpc: "2.0", id: 2, method: "session/prompt", params: prompt("y") });
  await peer.next((f) => f.id === 2);
  assert.equal(peer.frames.length, 2);
});

test("a handler's own cancellation is answered -32800 too, as if cancel_request was received", async () => {
  // cancellation.mdx: internal cancellation SHOULD "Send the same -32800 (Cancelled) error response
  // as if $/cancel_request was received".
  const { clientSide } = connected(
    {
      async sessionPrompt() {
        // Its own timeout fired (an AbortSignal.timeout given to fetch would throw the same).
        throw new DOMException("the model call timed out", "AbortError");
      },
    },
    {},
  );
  const error = await rejection(clientSide.agent.sessionPrompt(prompt("x")));
  assert.equal(error.code, REQUEST_CANCELLED);
  assert.deepEqual(error.data, { requestId: 0 });
});

test("a request that already failed when its cancel is read keeps its own error; so does a handler's RequestError after the cancel", async () => {
  // cancellation.mdx: the receiver MUST send "A valid response with appropriate data" or -32800; a
  // cancel that arrives after the handler finished changes nothing (as in the Python runtime, a
  // handler's own RpcError is its answer). The request and its cancel are read in one chunk here:
  // the handler has failed -32601 before the cancel is read, but that is not written yet.
  const { peer } = agentWithRawClient({
    async sessionLoad(_params, ctx) {
      await aborted(ctx.signal);
      throw new RequestError(-32602, "Invalid params", { details: "chosen by the handler" });
    },
  });
  peer.send({ jsonrpc: "2.0", id: "unknown", method: "no/such_method" });
  peer.send({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: "unknown" } });
  assert.equal(((await peer.next((f) => f.id === "unknown")).error as { code: number }).code, -32601);
  peer.send({ jsonrpc: "2.0", id: 2, method: "session/load", params: { sessionId: "s", cwd: "/", mcpServers: [] } });
  await new Promise((resolve) => setTimeout(resolve, 20));
  peer.send({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 2 } });
  assert.deepEqual((await peer.next((f) => f.id === 2)).error, { code: -32602, message: "Invalid params", data: { details: "chosen by the handler" } });
});

test("a handler that reads ctx.signal only after the cancel arrived finds it aborted with the cancel", async () => {
  // The request's AbortSignal is made on first use (connection.ts): a cancel that came before
  // must still be seen, with its reason, and the answer is still -32800.
  const client = recordingClient();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let seen: { aborted: boolean; code: unknown } | null = null;
  const { clientSide } = connected(
    {
      async sessionPrompt(params, ctx) {
        await ctx.client.sessionUpdate(chunk(params.sessionId, "working"));
        await released;
        const reason = ctx.signal.reason as unknown;
        seen = { aborted: ctx.signal.aborted, code: reason instanceof RequestError ? reason.code : reason };
        throw reason;
      },
    },
    client,
  );
  const controller = new AbortController();
  const call = clientSide.agent.sessionPrompt(prompt("slow"), { signal: controller.signal });
  await until(() => client.chunks.length > 0);
  controller.abort();
  await new Promise((resolve) => setTimeout(resolve, 50)); // the cancel is read meanwhile
  release();
  const error = await rejection(call);
  assert.equal(error.code, REQUEST_CANCELLED);
  assert.deepEqual(seen, { aborted: true, code: REQUEST_CANCELLED });
});
