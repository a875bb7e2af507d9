// The client-held state wired into the typed layer: a client connection keeps the state its
// agent's messages leave (notifications, requests it receives, what it sends and the responses it
// gets back), with no code in the user's client; the v2 view reads its session's part. The Python
// runtime's counterpart is tests/typed/test_client_state.py.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Applied } from "../src/index.js";
import * as v1 from "../src/v1/index.js";
import * as v2 from "../src/v2/index.js";
import { chunk, connected, until } from "./support.js";
import { SESSION, connectedV2, text, words } from "./v2_support.js";

const MODE: v2.SessionConfigOption = { configId: "mode", name: "Mode", type: "select", currentValue: "ask", options: [{ value: "ask", name: "Ask" }] };

/** A v2 agent whose work reports a tool call, asks permission for it (the request embeds the tool
 * call), then streams the prompt's words. */
const toolAgent: v2.Agent = {
  async initialize() {
    return { protocolVersion: 2, info: { name: "v2-tool-agent", version: "0" } };
  },
  async sessionNew() {
    return { sessionId: SESSION, configOptions: [MODE] };
  },
  async sessionPrompt(params, ctx) {
    const update = (u: v2.SessionUpdate): Promise<void> => ctx.client.sessionUpdate({ sessionId: ctx.sessionId, update: u });
    await update({ sessionUpdate: "tool_call_update", toolCallId: "t1", title: "Edit a.txt", kind: "edit", status: "pending" });
    await ctx.client.sessionRequestPermission({
      sessionId: ctx.sessionId,
      title: "Allow edit?",
      options: [{ optionId: "ok", name: "Allow", kind: "allow_once" }],
      subject: { type: "tool_call", toolCall: { toolCallId: "t1", status: "in_progress" } },
    });
    for (const word of words(params.prompt)) {
      await update({ sessionUpdate: "agent_message_chunk", messageId: `a-${ctx.messageId}`, content: { type: "text", text: word } });
    }
    await update({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" });
    return "end_turn";
  },
};

test("a v2 view reads its session as the updates left it, with a change event per applied update", async () => {
  const seenAtPermission: unknown[] = [];
  let connection: v2.ClientConnection | undefined;
  const client: v2.Client = {
    async sessionRequestPermission() {
      // The embedded tool call is applied before the handler runs ("before showing the prompt").
      seenAtPermission.push(connection?.sessionState(SESSION).entries("toolCall"));
      return { outcome: { outcome: "selected", optionId: "ok" } };
    },
  };
  const { clientSide } = connectedV2(toolAgent, client);
  connection = clientSide;
  const created = await clientSide.agent.sessionNew({ cwd: "/tmp" });
  const view = clientSide.session(created.sessionId);
  assert.deepEqual(view.sessionState.get("configOptions"), [MODE], "session/new's response is applied");
  const events: Applied[] = [];
  const runStates: unknown[] = [];
  view.onStateChange((applied) => {
    events.push(applied);
    // The listener runs after the state changed.
    if (applied.changes.some((c) => c.target === "state")) runStates.push((view.sessionState.get("state") as { state: string }).state);
  });
  const messageId = await view.prompt(text("hello world"));
  await view.idle(messageId);
  await until(() => (view.sessionState.get("state") as { state?: string } | undefined)?.state === "idle");

  assert.deepEqual(seenAtPermission, [[{ toolCallId: "t1", title: "Edit a.txt", kind: "edit", status: "in_progress" }]]);
  const snapshot = view.stateSnapshot();
  assert.deepEqual(snapshot.targets["userMessage"], [{ id: messageId, value: { messageId, content: text("hello world") } }]);
  assert.deepEqual(snapshot.targets["agentMessage"], [
    { id: `a-${messageId}`, value: { content: [{ type: "text", text: "hello" }, { type: "text", text: "world" }], messageId: `a-${messageId}` } },
  ]);
  assert.deepEqual(snapshot.targets["toolCall"], [{ id: "t1", value: { toolCallId: "t1", title: "Edit a.txt", kind: "edit", status: "completed" } }]);
  assert.deepEqual(snapshot.targets["state"], { state: "idle", stopReason: "end_turn" });
  assert.deepEqual(snapshot.log, []);
  // One event per applied update, each naming what it changed, in arrival order.
  const changed = events.map((applied) => applied.changes.map((c) => `${c.target}:${c.id ?? ""}:${c.action}`).join());
  assert.deepEqual(changed, [
    `userMessage:${messageId}:upsert`,
    "state::replace",
    "toolCall:t1:upsert",
    "state::replace", // requires_action: the work awaits the permission
    "toolCall:t1:upsert", // the permission request's embedded tool call
    "state::replace",
    `agentMessage:a-${messageId}:append`,
    `agentMessage:a-${messageId}:append`,
    "toolCall:t1:upsert",
    "state::replace",
  ]);
  assert.deepEqual(runStates, ["running", "requires_action", "running", "idle"]);
  assert.ok(events.every((applied) => applied.session === SESSION));
  await clientSide.close();
});

test("a v2 view's state is the connection's: sessionState(id) and the snapshot agree", async () => {
  const { clientSide } = connectedV2(toolAgent, { async sessionRequestPermission() { return { outcome: { outcome: "cancelled" } }; } });
  const view = clientSide.session(SESSION);
  await view.idle(await view.prompt(text("one")));
  await until(() => (view.sessionState.get("state") as { state?: string } | undefined)?.state === "idle");
  assert.equal(clientSide.sessionState(SESSION), view.sessionState);
  assert.deepEqual(clientSide.clientState.snapshot().sessions[SESSION], view.stateSnapshot());
  await clientSide.close();
});

test("a v1 client connection keeps the state: chunks without messageId join the prompt turn the client sent", async () => {
  let turns = 0;
  const agent: v1.Agent = {
    async sessionPrompt(params, ctx) {
      turns += 1;
      await ctx.client.sessionUpdate(chunk(params.sessionId, `turn ${turns}`));
      await ctx.client.sessionUpdate({ sessionId: params.sessionId, update: { sessionUpdate: "tool_call", toolCallId: `t${turns}`, title: "Read", status: "pending" } });
      await ctx.client.sessionUpdate({ sessionId: params.sessionId, update: { sessionUpdate: "_vendor_progress", percent: 40 } as unknown as v1.SessionUpdate });
      return { stopReason: "end_turn" };
    },
  };
  const heard: Applied[] = [];
  const { clientSide } = connected(agent, {});
  const stop = clientSide.onStateChange((applied) => heard.push(applied), "s1");
  for (const word of ["a", "b"]) await clientSide.agent.sessionPrompt({ sessionId: "s1", prompt: [{ type: "text", text: word }] });
  stop();
  const state = clientSide.sessionState("s1");
  assert.deepEqual(state.entries("agentMessage"), [
    { content: [{ type: "text", text: "turn 1" }], messageId: "turn:1" },
    { content: [{ type: "text", text: "turn 2" }], messageId: "turn:2" },
  ]);
  assert.deepEqual([...(state.get("toolCall") as Map<string, unknown>).keys()], ["t1", "t2"]);
  assert.equal(state.turn, 2);
  // A variant the schema does not know is kept in the log, changing nothing else.
  assert.deepEqual(
    state.log.map((message) => (message as { params: { update: { sessionUpdate: string } } }).params.update.sessionUpdate),
    ["_vendor_progress", "_vendor_progress"],
  );
  assert.deepEqual(
    heard.map((applied) => applied.changes.map((c) => `${c.target}:${c.id ?? ""}`).join() || (applied.logged ? "logged" : "")),
    ["agentMessage:turn:1", "toolCall:t1", "logged", "agentMessage:turn:2", "toolCall:t2", "logged"],
  );
  await clientSide.close();
});

test("a client connection keeps what the agent sent where a lenient rule drops it from the decoded params (as the Python and Go clients)", async () => {
  const agent: v1.Agent = {
    async sessionPrompt(params, ctx) {
      const update = { sessionUpdate: "tool_call", toolCallId: "t1", title: "Warp", kind: "teleport", status: "paused" };
      await ctx.client.sessionUpdate({ sessionId: params.sessionId, update: update as unknown as v1.SessionUpdate });
      return { stopReason: "end_turn" };
    },
  };
  const handled: unknown[] = [];
  const { clientSide } = connected(agent, {
    async sessionUpdate(params) {
      handled.push(params.update);
    },
  });
  await clientSide.agent.sessionPrompt({ sessionId: "s1", prompt: [{ type: "text", text: "go" }] });
  await until(() => handled.length === 1);
  // The handler gets the decoded params: the unknown kind and status are dropped (the schema's
  // default-on-error); the state holds the message as it came.
  assert.deepEqual(handled, [{ sessionUpdate: "tool_call", toolCallId: "t1", title: "Warp" }]);
  assert.deepEqual(clientSide.sessionState("s1").entries("toolCall"), [{ toolCallId: "t1", title: "Warp", kind: "teleport", status: "paused" }]);
  await clientSide.close();
});
