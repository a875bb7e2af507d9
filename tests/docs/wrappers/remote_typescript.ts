// docs/transports.md's TypeScript runtime block: what it takes as known (an agent class, the node
// server it adds its handlers to, a client and a bearer token). Compiled only: it would listen on
// port 8000 and connect to agent.example.
import * as http from "node:http";
import type { Agent, Client } from "acp-protocol-sdk/v1";

class MyAgent implements Agent {
  async sessionNew() {
    return { sessionId: "s-1" };
  }
}
const server = http.createServer();
const client: Client = {};
const token = process.env.ACP_TOKEN ?? "secret";

// FRAGMENT
