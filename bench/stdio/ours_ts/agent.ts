// Two-process bench agent on our generated TypeScript package (v1, stdio): the same work as
// bench/stdio/ts/agent.mjs (the official SDK's). Prompt text selects it:
//   "flood N"    N session/update agent_message_chunk notifications, then end_turn
//   "reads N K"  N fs/read_text_file requests to the client, K in flight, then end_turn
// `make ts-build` compiles it against the package (.build/typescript/dist-test/test/bench/).
import * as v1 from "../../src/v1/index.js";

const CHUNK = "The quick brown fox jumps over the lazy dog. ".repeat(4);

const agent: v1.Agent = {
  async initialize(params) {
    return { protocolVersion: params.protocolVersion };
  },
  async sessionNew() {
    return { sessionId: "bench" };
  },
  async sessionPrompt(params, ctx) {
    const text = params.prompt.map((b) => (b.type === "text" ? b.text : "")).join(" ");
    const [kind, a = "0", b = "1"] = text.split(/\s+/);
    const { sessionId } = params;
    if (kind === "flood") {
      for (let i = 0; i < Number(a); i++) {
        await ctx.client.sessionUpdate({ sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: CHUNK } } });
      }
    } else {
      let left = Number(a);
      const worker = async (): Promise<void> => {
        while (left > 0) {
          left--;
          await ctx.client.fsReadTextFile({ sessionId, path: "/bench/file.txt" });
        }
      };
      await Promise.all(Array.from({ length: Number(b) }, worker));
    }
    return { stopReason: "end_turn" };
  },
};

if (process.argv[2] === "--listen") {
  // The remote transport (bench/remote.py): 127.0.0.1, any port; the URL on stdout; ends with stdin.
  const listening = await v1.listenAgent(agent);
  process.stdout.write(`${listening.url}\n`);
  process.stdin.resume();
  process.stdin.once("end", () => process.exit(0));
} else {
  await v1.runAgent(agent);
  process.exit(0);
}
