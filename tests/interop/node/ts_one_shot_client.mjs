// A one-shot ACP client on the official TypeScript SDK (@agentclientprotocol/sdk 2.4.0), for the
// conformance field table (tools/conformance_field): the npm package ships no example client, so
// this one does what the official Rust SDK's one-shot examples do (yolo_one_shot_client.rs for
// v1, v2_one_shot_client.rs for v2), and nothing more, so that the row measures the SDK.
// Usage: node ts_one_shot_client.mjs v1|v2 PROMPT AGENT [ARGS...]
// It spawns the agent, initializes (no client capabilities), opens a session in its working
// folder, sends PROMPT, prints the agent's message text as it arrives and the stop reason, then
// exits 0. A permission request: v1 selects the narrowest allow option (as the "yolo" example),
// v2 selects a reject option (as v2's example); with no such option, the outcome is `cancelled`.
// The turn ends on the prompt's answer in v1, on the session's idle update in v2. Any failure:
// one line on stderr, exit 1. The agent never outlives this process.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as v1 from "@agentclientprotocol/sdk";
import * as v2 from "@agentclientprotocol/sdk/experimental/v2";

const [edition, prompt, program, ...args] = process.argv.slice(2);
let child;
function killChild() {
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}
function fail(message) {
  process.stderr.write(`ts-one-shot-client: ${message}\n`);
  killChild();
  process.exit(1);
}
process.on("exit", killChild);
if (!["v1", "v2"].includes(edition) || prompt === undefined || !program) {
  fail("usage: node ts_one_shot_client.mjs v1|v2 PROMPT AGENT [ARGS...]");
}

child = spawn(program, args, { stdio: ["pipe", "pipe", "inherit"] });
child.on("error", (error) => fail(`cannot run the agent: ${error.message}`));
let finished = false;
child.on("exit", (code, signal) => {
  if (!finished) fail(`the agent exited (code ${code}, signal ${signal})`);
});

/** The option the example selects: its kinds in order of preference, else none. */
function choose(options, kinds) {
  for (const kind of kinds) {
    const option = options.find((o) => o.kind === kind);
    if (option) return { outcome: { outcome: "selected", optionId: option.optionId } };
  }
  return { outcome: { outcome: "cancelled" } };
}

function show(update) {
  if (update.sessionUpdate === "agent_message_chunk" && update.content?.type === "text") {
    process.stdout.write(update.content.text);
  }
}

async function runV1(stream) {
  const app = v1
    .client({ name: "ts-one-shot-client" })
    .onNotification(v1.methods.client.session.update, async (ctx) => show(ctx.params.update))
    .onRequest(v1.methods.client.session.requestPermission, async (ctx) =>
      choose(ctx.params.options, ["allow_once", "allow_always"]),
    );
  await app.connectWith(stream, async (agent) => {
    await agent.request(v1.methods.agent.initialize, {
      protocolVersion: v1.PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    const { sessionId } = await agent.request(v1.methods.agent.session.new, {
      cwd: process.cwd(),
      mcpServers: [],
    });
    const answer = await agent.request(v1.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: prompt }],
    });
    process.stdout.write(`\n[${answer.stopReason}]\n`);
  });
}

async function runV2(stream) {
  const app = v2
    .client({ name: "ts-one-shot-client" })
    .onRequest(v2.methods.client.session.requestPermission, async (ctx) =>
      choose(ctx.params.options, ["reject_once", "reject_always"]),
    );
  await app.connectWith(stream, async (agent) => {
    await agent.request(v2.methods.agent.initialize, {
      protocolVersion: 2,
      info: { name: "ts-one-shot-client", version: "2.4.0" },
      capabilities: {},
    });
    const session = await agent.buildSession(process.cwd()).start();
    try {
      await session.prompt(prompt);
      for (;;) {
        const message = await session.nextUpdate();
        show(message.update);
        if (message.kind === "stop") {
          process.stdout.write(`\n[${message.stopReason ?? "idle"}]\n`);
          break;
        }
      }
    } finally {
      session.dispose();
    }
  });
}

const stream = v1.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
try {
  await (edition === "v1" ? runV1(stream) : runV2(stream));
} catch (error) {
  const code = error?.code !== undefined ? ` (code ${error.code})` : "";
  fail(`${error?.message ?? error}${code}`);
}
finished = true;
child.stdin.end();
const killTimer = setTimeout(killChild, 2000);
await new Promise((resolve) => {
  if (child.exitCode !== null || child.signalCode !== null) resolve();
  else child.once("exit", resolve);
});
clearTimeout(killTimer);
