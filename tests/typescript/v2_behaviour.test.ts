// The rest of v2's behaviour rules through the generated typed layers (each edition's BEHAVIOUR):
// the `initialize` answer's version and capabilities, the `cancelled` permission outcome of
// `$/cancel_request`, the `_meta` patch policy, and the client's session view.
import assert from "node:assert/strict";
import { test } from "node:test";
import { EMPTY_SESSION_INFO, memoryPair } from "../src/index.js";
import * as v1 from "../src/v1/index.js";
import * as v2 from "../src/v2/index.js";
import { aborted, connected, until } from "./support.js";
import { SESSION, connectedV2, text, wordAgent } from "./v2_support.js";

test("initialize answers the edition's version, never the one asked, and advertises capabilities.session once the whole session baseline is served", async () => {
  // InitializeResponse.protocolVersion: "The highest protocol version supported by the agent that
  // is at or below the version requested by the client." AgentCapabilities.session: "Supplying
  // `{}` means the agent supports the baseline session methods: `session/new`, `session/list`,
  // `session/resume`, `session/close`, `session/prompt`, `session/cancel`, and `session/update`"
  // (session/close and session/cancel are the SDK's).
  const lists: v2.Agent = {
    async initialize(params) {
      return { protocolVersion: params.protocolVersion, info: { name: "echoing", version: "0" } };
    },
    async sessionList() {
      return { sessions: [] };
    },
  };
  const agent: v2.Agent = {
    ...lists,
    async sessionNew() {
      return { sessionId: SESSION };
    },
    async sessionResume() {
      return {};
    },
    async sessionPrompt() {
      return "end_turn";
    },
  };
  const { clientSide } = connectedV2(agent, {});
  const init = await clientSide.agent.initialize({ protocolVersion: 7, info: { name: "c", version: "0" } });
  assert.equal(init.protocolVersion, 2);
  assert.deepEqual(init.capabilities, { session: {} });
  assert.equal(JSON.stringify(init).includes("agentCapabilities"), false, "never a v1 path in a v2 answer");
  // session/list alone promises nothing: session/new, session/resume and session/prompt answer -32601.
  const partial = connectedV2(lists, {}).clientSide;
  const answer = await partial.agent.initialize({ protocolVersion: 2, info: { name: "c", version: "0" } });
  assert.equal(answer.capabilities?.session, undefined);
});

test("a v2 agent asked for a version below 2 fails initialization with -32022", async () => {
  const { clientSide } = connectedV2(wordAgent, {});
  await assert.rejects(clientSide.agent.initialize({ protocolVersion: 1, info: { name: "c", version: "0" } }), (error: { code: number; data: unknown }) => {
    assert.equal(error.code, -32022);
    assert.deepEqual(error.data, { requested: 1, supported: [2] });
    return true;
  });
});

test("a v1 client's initialize (v1 params, no info) gets -32022 from a v2 agent, not a complaint about info", async () => {
  const { clientSide } = connectedV2(wordAgent, {});
  const v1Params = { protocolVersion: 1, clientCapabilities: {} } as unknown as Parameters<typeof clientSide.agent.initialize>[0];
  await assert.rejects(clientSide.agent.initialize(v1Params), (error: { code: number; data: unknown }) => {
    assert.equal(error.code, -32022);
    assert.deepEqual(error.data, { requested: 1, supported: [2] });
    return true;
  });
});

test("a v1 agent answers version 1 whatever is asked, and advertises session/list at its v1 path", async () => {
  // initialization.mdx: the Agent "MUST respond with the latest protocol version it supports".
  const { clientSide } = connected(
    {
      async initialize() {
        return { protocolVersion: 9, agentCapabilities: { loadSession: false } };
      },
      async sessionList() {
        return { sessions: [] };
      },
      async sessionLoad() {
        return {};
      },
    },
    {},
  );
  for (const asked of [0, 1, 5]) {
    const init = await clientSide.agent.initialize({ protocolVersion: asked });
    assert.equal(init.protocolVersion, 1);
    // loadSession: the handler's own `false` is kept; list is advertised where v1 puts it.
    assert.deepEqual(init.agentCapabilities, { loadSession: false, sessionCapabilities: { list: {} } });
  }
});

test("$/cancel_request of a pending permission request is answered with the cancelled outcome in v2, -32800 in v1", async () => {
  // RequestPermissionOutcome: "The client answers a request the agent cancels with
  // `$/cancel_request` with this outcome."
  const waiting: v2.Client = {
    async sessionRequestPermission(_params, ctx) {
      await aborted(ctx.signal);
      throw ctx.signal.reason;
    },
  };
  const { agentSide } = connectedV2({}, waiting);
  const controller = new AbortController();
  const asked = agentSide.client.sessionRequestPermission(
    { sessionId: SESSION, title: "ok?", options: [{ optionId: "y", name: "Yes", kind: "allow_once" }] },
    { signal: controller.signal },
  );
  setTimeout(() => controller.abort(), 10);
  assert.deepEqual(await asked, { outcome: { outcome: "cancelled" } });

  const waitingV1: v1.Client = {
    async sessionRequestPermission(_params, ctx) {
      await aborted(ctx.signal);
      throw ctx.signal.reason;
    },
  };
  const { agentSide: v1Agent } = connected({}, waitingV1);
  const v1Controller = new AbortController();
  const v1Asked = v1Agent.client.sessionRequestPermission(
    { sessionId: SESSION, toolCall: { toolCallId: "t" }, options: [{ optionId: "y", name: "Yes", kind: "allow_once" }] },
    { signal: v1Controller.signal },
  );
  setTimeout(() => v1Controller.abort(), 10);
  await assert.rejects(v1Asked, (error: { code: number }) => error.code === -32800);
});

test("v2 patches _meta by top-level key; v1 keeps merging", () => {
  // SessionInfoUpdate._meta (v2): "An object patches the stored metadata by top-level key: keys it
  // omits are unchanged, a key set to `null` is removed, and any other value replaces that key's
  // stored value without merging nested objects."
  assert.equal(v2.SESSION_INFO_META_POLICY, "patch");
  assert.equal(v1.SESSION_INFO_META_POLICY, "merge");
  const stored = { ...EMPTY_SESSION_INFO, meta: { keep: 1, gone: true, nested: { a: 1 } } };
  const update = { _meta: { gone: null, nested: { b: 2 } } };
  assert.deepEqual(v2.applySessionInfoUpdate(stored, update).meta, { keep: 1, nested: { b: 2 } });
  assert.deepEqual(v1.applySessionInfoUpdate(stored, update).meta, { keep: 1, nested: { a: 1, b: 2 } });
  assert.deepEqual(v2.applySessionInfoUpdate(stored, { _meta: null }).meta, null);
});

test("a client's session view: prompt gives the messageId, idle gives the stop reason, updates stream in order", async () => {
  const [left, right] = memoryPair();
  v2.connectAgent(wordAgent, left);
  const client = v2.connectClient({}, right);
  const session = client.session(SESSION);
  const messageId = await session.prompt(text("one two"));
  assert.deepEqual(await session.idle(messageId), { stopReason: "end_turn" });
  assert.equal(session.state, "idle");
  assert.deepEqual(
    session.updates.map((u) => u.sessionUpdate),
    ["user_message", "state_update", "agent_message_chunk", "agent_message_chunk", "state_update"],
  );
  const seen: string[] = [];
  const reading = (async () => {
    for await (const update of session.stream()) {
      seen.push(update.sessionUpdate);
      if (seen.length === 9) break;
    }
  })();
  const second = await session.prompt(text("wait"));
  await until(() => session.state === "running" && session.updates.length >= 8);
  await session.cancel();
  assert.deepEqual(await session.idle(second), { stopReason: "cancelled" });
  await reading;
  // The stream starts from the view's first update and follows the second work to its end.
  assert.deepEqual(seen.slice(5), ["user_message", "state_update", "agent_message_chunk", "state_update"]);
  await client.close();
});
