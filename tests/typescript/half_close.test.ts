// Half-close (`printf … | agent`): the requests a peer sent before the end of its input are carried
// out and answered, within `eofGrace`; what still runs then is answered -32800; our own requests
// fail at once (no answer can come). As the Python runtime (connection.py, `eof_grace`).
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { ConnectionClosed, StreamTransport } from "../src/index.js";
import * as v1 from "../src/v1/index.js";
import { aborted, until } from "./support.js";

const REQUESTS = [
  { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1 } },
  { jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/", mcpServers: [] } },
  { jsonrpc: "2.0", id: 2, method: "session/prompt", params: { sessionId: "s", prompt: [{ type: "text", text: "x" }] } },
];

function halfClosed(agent: v1.Agent, eofGrace?: number): { answers: Array<Record<string, unknown>>; connection: v1.AgentConnection } {
  const input = new PassThrough();
  const output = new PassThrough();
  const answers: Array<Record<string, unknown>> = [];
  output.on("data", (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) if (line) answers.push(JSON.parse(line) as Record<string, unknown>);
  });
  const connection = v1.connectAgent(agent, new StreamTransport(input, output), eofGrace === undefined ? {} : { eofGrace });
  input.end(REQUESTS.map((request) => JSON.stringify(request)).join("\n") + "\n");
  return { answers, connection };
}

const base = {
  async initialize(params: v1.InitializeRequest) {
    return { protocolVersion: params.protocolVersion };
  },
  async sessionNew() {
    return { sessionId: "s" };
  },
};

test("a request read before the end of input is carried out and answered", async () => {
  const { answers, connection } = halfClosed({
    ...base,
    async sessionPrompt() {
      await new Promise((resolve) => setTimeout(resolve, 200));
      return { stopReason: "end_turn" };
    },
  });
  await connection.closed;
  assert.deepEqual(answers.find((answer) => answer["id"] === 2)?.["result"], { stopReason: "end_turn" });
});

test("what still runs after eofGrace is answered -32800, then the connection closes", async () => {
  const { answers, connection } = halfClosed(
    {
      ...base,
      async sessionPrompt(_params, ctx) {
        await aborted(ctx.signal);
        throw ctx.signal.reason;
      },
    },
    0.2,
  );
  const started = Date.now();
  await connection.closed;
  assert.ok(Date.now() - started >= 150);
  const answer = answers.find((frame) => frame["id"] === 2) as { error?: { code: number } } | undefined;
  assert.equal(answer?.error?.code, -32800);
});

test("our own requests fail at once at the peer's end of input", async () => {
  let failure: unknown = null;
  const { connection } = halfClosed({
    ...base,
    async sessionPrompt(params, ctx) {
      await new Promise((resolve) => setTimeout(resolve, 50)); // the input has ended by now
      try {
        await ctx.client.fsReadTextFile({ sessionId: params.sessionId, path: "/x" });
      } catch (error) {
        failure = error;
      }
      return { stopReason: "end_turn" };
    },
  });
  await until(() => failure !== null, 2000);
  assert.ok(failure instanceof ConnectionClosed);
  await connection.closed;
});
