// The TypeScript client of the kill-a-server test (tests/scale/test_kill_a_server_typescript.py):
// `node reconnect_client.js URL` opens a session through nginx with `reconnect`, has turns `a`
// and `b` answered, starts `hang` and prints `HOLDER <pid>` once the agent said which process
// holds it; the driver kills that process. Then it prints what happened, one line each:
// `INFLIGHT <error name>`, every `LOG <reconnect line>`, `ANSWER <stop reason>` of turn `c` on the
// new process, `SAID <json>` (every update text it was sent), `SESSION <id>`.
import { ConnectionClosed } from "../src/index.js";
import * as v1 from "../src/v1/index.js";

const [url = ""] = process.argv.slice(2);
const said: string[] = [];
let holder: (pid: string) => void = () => undefined;
const held = new Promise<string>((resolve) => (holder = resolve));

const client: v1.Client = {
  async sessionUpdate(params) {
    const update = params.update as { content?: { text?: string } };
    const text = update.content?.text ?? "";
    said.push(text);
    if (text.startsWith("hang@")) holder(text.slice("hang@".length));
  },
};

function prompt(sessionId: string, text: string): v1.PromptRequest {
  return { sessionId, prompt: [{ type: "text", text }] };
}

const print = (line: string): void => void process.stdout.write(`${line}\n`);
const connection = await v1.connectRemoteAgent(client, url, {
  reconnect: { firstDelayMs: 50, log: (line) => print(`LOG ${line}`) },
});
await connection.agent.initialize({ protocolVersion: v1.PROTOCOL_VERSION });
const { sessionId } = await connection.agent.sessionNew({ cwd: "/work", mcpServers: [] });
for (const text of ["a", "b"]) await connection.agent.sessionPrompt(prompt(sessionId, text));
const inFlight = connection.agent.sessionPrompt(prompt(sessionId, "hang")).then(
  () => "answered",
  (error: unknown) => (error instanceof ConnectionClosed ? "ConnectionClosed" : String(error)),
);
print(`HOLDER ${await held}`);
print(`INFLIGHT ${await inFlight}`);
await connection.reconnected();
const answer = await connection.agent.sessionPrompt(prompt(sessionId, "c"));
print(`ANSWER ${answer.stopReason}`);
while (said.at(-1) !== "c:2") await new Promise((resolve) => setTimeout(resolve, 5));
print(`SAID ${JSON.stringify(said)}`);
print(`SESSION ${sessionId}`);
await connection.close();
