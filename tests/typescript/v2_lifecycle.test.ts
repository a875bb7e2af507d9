// The v2 prompt lifecycle on the agent side, as schema/acp/v2/schema.json describes it, through
// the generated v2 typed layer (runtime/foreground.ts) and a raw client that sees every frame in
// arrival order.
import assert from "node:assert/strict";
import { test } from "node:test";
import { RequestError } from "../src/index.js";
import * as v2 from "../src/v2/index.js";
import { until } from "./support.js";
import { SESSION, agentWithRawClient, labels, prompt, updates, wordAgent, words } from "./v2_support.js";

test("session/prompt is answered at insertion with a fresh messageId; the work then runs and ends idle end_turn", async () => {
  // PromptResponse: "Response acknowledging that a user prompt was inserted into the ACP
  // conversation. … Processing and completion are reported through `state_update` session updates."
  const { peer } = agentWithRawClient(wordAgent);
  prompt(peer, 1, "hello big world");
  const answer = await peer.next((f) => f["id"] === 1);
  await peer.next((f) => labels([f])[0] === "update:state_update:idle:end_turn");
  const messageId = (answer["result"] as { messageId: string }).messageId;
  assert.match(messageId, /^[0-9a-f-]{36}$/);
  assert.deepEqual(labels(peer.frames), [
    "update:user_message",
    "update:state_update:running",
    "answer:1",
    "update:agent_message_chunk",
    "update:agent_message_chunk",
    "update:agent_message_chunk",
    "update:state_update:idle:end_turn",
  ]);
  // UserMessage: the inserted message, echoed under the answer's id.
  assert.deepEqual(updates(peer.frames)[0], { sessionUpdate: "user_message", messageId, content: [{ type: "text", text: "hello big world" }] });
  prompt(peer, 2, "again");
  const second = await peer.next((f) => f["id"] === 2);
  assert.notEqual((second["result"] as { messageId: string }).messageId, messageId);
});

test("a prompt arriving while work runs is held, then inserted (and answered) when the work ends", async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const agent: v2.Agent = {
    async sessionPrompt(params) {
      if (params.prompt.some((b) => b.type === "text" && b.text === "first")) await gate;
      return "end_turn";
    },
  };
  const { peer } = agentWithRawClient(agent);
  prompt(peer, 1, "first");
  await peer.next((f) => f["id"] === 1);
  prompt(peer, 2, "second");
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(peer.frames.some((f) => f["id"] === 2), false, "held: not answered while the first work runs");
  release();
  await peer.next((f) => f["id"] === 2);
  await until(() => labels(peer.frames).filter((l) => l === "update:state_update:idle:end_turn").length === 2);
  assert.deepEqual(labels(peer.frames), [
    "update:user_message",
    "update:state_update:running",
    "answer:1",
    "update:state_update:idle:end_turn",
    "update:user_message",
    "update:state_update:running",
    "answer:2",
    "update:state_update:idle:end_turn",
  ]);
});

test("session/cancel mid-work ends the work with an idle cancelled update and answers held prompts -32800", async () => {
  // CancelSessionNotification: "Notification to cancel a session's foreground work and its
  // prompts not yet inserted." Stop reason `cancelled`: "Agents MUST catch these errors and report
  // `cancelled`, not `error`."
  const { peer } = agentWithRawClient(wordAgent);
  prompt(peer, 1, "wait");
  await peer.next((f) => labels([f])[0] === "update:agent_message_chunk");
  prompt(peer, 2, "held one");
  await new Promise((resolve) => setTimeout(resolve, 20));
  peer.send({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: SESSION } });
  const held = await peer.next((f) => f["id"] === 2);
  assert.deepEqual(held["error"], { code: -32800, message: "Request cancelled", data: { requestId: 2 } });
  await peer.next((f) => labels([f])[0] === "update:state_update:idle:cancelled");
  await new Promise((resolve) => setTimeout(resolve, 30));
  // The held prompt was never inserted: one user message only.
  assert.equal(labels(peer.frames).filter((l) => l === "update:user_message").length, 1);
});

test("cancelling the work cancels its nested requests with $/cancel_request", async () => {
  const { peer } = agentWithRawClient(wordAgent);
  prompt(peer, 1, "ask first");
  const ask = await peer.next((f) => f["method"] === "session/request_permission");
  peer.send({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: SESSION } });
  const cancel = await peer.next((f) => f["method"] === "$/cancel_request");
  assert.deepEqual(cancel["params"], { requestId: ask["id"] });
  // The client answers the cancelled request with the `cancelled` outcome; the work ends cancelled.
  peer.send({ jsonrpc: "2.0", id: ask["id"], result: { outcome: { outcome: "cancelled" } } });
  await peer.next((f) => labels([f])[0] === "update:state_update:idle:cancelled");
});

test("session/close during work sends the idle cancelled update before its answer {}, then the user's handler runs", async () => {
  // CloseSessionRequest: "When closing cancels active foreground work, the Agent MUST send the
  // final updates for that work and the idle `state_update` with `stopReason: "cancelled"` before
  // responding successfully to `session/close`."
  const closed: string[] = [];
  const agent: v2.Agent = {
    ...wordAgent,
    async sessionClose(params) {
      closed.push(params.sessionId);
      return {};
    },
  };
  const { peer } = agentWithRawClient(agent);
  prompt(peer, 1, "wait");
  await peer.next((f) => labels([f])[0] === "update:agent_message_chunk");
  prompt(peer, 2, "held");
  peer.send({ jsonrpc: "2.0", id: 3, method: "session/close", params: { sessionId: SESSION } });
  await peer.next((f) => f["id"] === 3);
  const order = labels(peer.frames);
  assert.ok(order.indexOf("update:state_update:idle:cancelled") < order.indexOf("answer:3"), order.join(", "));
  // "If closing prevents a prompt's user message from being inserted, the Agent MUST answer that
  // request with `-32800`".
  assert.ok(order.includes("error:2:-32800"));
  assert.deepEqual(peer.frames.find((f) => f["id"] === 3)?.["result"], {});
  assert.deepEqual(closed, [SESSION]);
});

test("session/close of an unknown session succeeds without a handler", async () => {
  // CloseSessionRequest: "Closing a session that does not exist or is not active SHOULD succeed".
  const { peer } = agentWithRawClient(wordAgent);
  peer.send({ jsonrpc: "2.0", id: 1, method: "session/close", params: { sessionId: "nobody" } });
  assert.deepEqual((await peer.next((f) => f["id"] === 1))["result"], {});
});

test("tool_call/cancel and terminal/cancel answer -32602 with the target in data unless handled", async () => {
  // CancelToolCallRequest: "The Agent responds with `-32602` if the tool call is unknown, already
  // final, or not cancellable."
  const { peer } = agentWithRawClient(wordAgent);
  peer.send({ jsonrpc: "2.0", id: 1, method: "tool_call/cancel", params: { sessionId: SESSION, toolCallId: "t-9" } });
  peer.send({ jsonrpc: "2.0", id: 2, method: "terminal/cancel", params: { sessionId: SESSION, terminalId: "term-1" } });
  const tool = (await peer.next((f) => f["id"] === 1))["error"] as { code: number; data: Record<string, unknown> };
  const terminal = (await peer.next((f) => f["id"] === 2))["error"] as { code: number; data: Record<string, unknown> };
  assert.equal(tool.code, -32602);
  assert.equal(tool.data["toolCallId"], "t-9");
  assert.equal(terminal.code, -32602);
  assert.equal(terminal.data["terminalId"], "term-1");
  const { peer: handled } = agentWithRawClient({ ...wordAgent, async toolCallCancel() { return {}; } });
  handled.send({ jsonrpc: "2.0", id: 1, method: "tool_call/cancel", params: { sessionId: SESSION, toolCallId: "t-1" } });
  assert.deepEqual((await handled.next((f) => f["id"] === 1))["result"], {});
});

test("an agent without sessionPrompt answers session/prompt -32601 and sends no update for it", async () => {
  const { sessionPrompt: _work, ...noWork } = wordAgent;
  const { peer } = agentWithRawClient(noWork);
  prompt(peer, 1, "hi");
  assert.equal(((await peer.next((f) => f["id"] === 1))["error"] as { code: number }).code, -32601);
  assert.deepEqual(updates(peer.frames), []);
});

test("sessionPrompt resolving with null or undefined ends idle end_turn; a stop reason it returns is reported", async () => {
  const reasons: Array<v2.IdleStopReason | null | undefined> = [null, undefined, "max_tokens"];
  const agent: v2.Agent = {
    async sessionPrompt() {
      return reasons.shift();
    },
  };
  const { peer } = agentWithRawClient(agent);
  for (const id of [1, 2, 3]) prompt(peer, id, "x");
  await until(() => labels(peer.frames).filter((l) => l.startsWith("update:state_update:idle")).length === 3);
  assert.deepEqual(
    labels(peer.frames).filter((l) => l.startsWith("update:state_update:idle")),
    ["update:state_update:idle:end_turn", "update:state_update:idle:end_turn", "update:state_update:idle:max_tokens"],
  );
});

test("a work that throws ends idle error with the error object; the next prompt is inserted", async () => {
  // ErrorStopReason: "Details of a failure that ended active work." … error: "The failure, as a
  // JSON-RPC error object."
  const problems: string[] = [];
  const agent: v2.Agent = {
    async sessionPrompt(params) {
      if (words(params.prompt).includes("fail")) throw new Error("the model is away");
      if (words(params.prompt).includes("refuse")) throw new RequestError(-32000, "Authentication required");
      return undefined;
    },
  };
  const { peer } = agentWithRawClient(agent, { onProblem: (message) => problems.push(message) });
  prompt(peer, 1, "fail");
  prompt(peer, 2, "refuse");
  prompt(peer, 3, "fine");
  await until(() => labels(peer.frames).filter((l) => l.startsWith("update:state_update:idle")).length === 3);
  const idles = updates(peer.frames).filter((u) => u["state"] === "idle");
  assert.deepEqual(idles, [
    { sessionUpdate: "state_update", state: "idle", stopReason: "error", error: { code: -32603, message: "Internal error", data: { details: "the model is away" } } },
    { sessionUpdate: "state_update", state: "idle", stopReason: "error", error: { code: -32000, message: "Authentication required" } },
    { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" },
  ]);
  assert.equal(problems.length, 2);
});

test("work awaiting a permission reports requires_action, then running again once it is answered", async () => {
  // StateUpdate: "The agent SHOULD report `requires_action` when the foreground workflow as a whole
  // cannot progress without user action, including permissions or elicitations. Once reported, it
  // MUST report `running` when progress resumes".
  const { peer } = agentWithRawClient(wordAgent);
  prompt(peer, 1, "ask then talk");
  const ask = await peer.next((f) => f["method"] === "session/request_permission");
  assert.deepEqual(labels(peer.frames), [
    "update:user_message",
    "update:state_update:running",
    "answer:1",
    "update:state_update:requires_action",
    "session/request_permission",
  ]);
  peer.send({ jsonrpc: "2.0", id: ask["id"], result: { outcome: { outcome: "selected", optionId: "yes" } } });
  await peer.next((f) => labels([f])[0] === "update:state_update:idle:end_turn");
  assert.deepEqual(labels(peer.frames).slice(5), [
    "update:state_update:running",
    "update:agent_message_chunk",
    "update:agent_message_chunk",
    "update:agent_message_chunk",
    "update:state_update:idle:end_turn",
  ]);
});

test("work cancelled while awaiting the user goes idle cancelled without running", async () => {
  // RequiresActionStateUpdate: "Once reported, agents MUST report `running` when progress resumes,
  // or `idle` if the work ends without resuming".
  const { peer } = agentWithRawClient(wordAgent);
  prompt(peer, 1, "ask");
  const ask = await peer.next((f) => f["method"] === "session/request_permission");
  peer.send({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: SESSION } });
  await peer.next((f) => f["method"] === "$/cancel_request");
  peer.send({ jsonrpc: "2.0", id: ask["id"], result: { outcome: { outcome: "cancelled" } } });
  await peer.next((f) => labels([f])[0] === "update:state_update:idle:cancelled");
  await new Promise((resolve) => setTimeout(resolve, 20));
  const states = labels(peer.frames).filter((l) => l.startsWith("update:state_update"));
  assert.deepEqual(states, ["update:state_update:running", "update:state_update:requires_action", "update:state_update:idle:cancelled"]);
});
