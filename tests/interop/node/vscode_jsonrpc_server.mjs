// An LSP-style server on vscode-jsonrpc (pinned in package.json): `createMessageConnection` over
// stdio with the LSP base protocol's Content-Length framing, the peer our TypeScript runtime's LSP
// dialect cancels a request of (tests/interop/test_interop_dialects.py).
//   "initialize": answers after 300 ms with `tokenCancelled`: whether a `$/cancelRequest` for it
//                 arrived (LSP: initialize is never cancelled);
//   "slow":       logs "slow started" (window/logMessage), waits until its token is cancelled
//                 (`$/cancelRequest`), then answers -32800 RequestCancelled, as LSP asks ("A request
//                 that got canceled still needs to return from the server and send a response back");
//   "shutdown", "exit": the end.
import { createMessageConnection, ResponseError, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node";

const connection = createMessageConnection(new StreamMessageReader(process.stdin), new StreamMessageWriter(process.stdout));
connection.onRequest("initialize", async (_params, token) => {
  await new Promise((resolve) => setTimeout(resolve, 300));
  return { capabilities: {}, serverInfo: { name: "vscode-jsonrpc-interop-server" }, tokenCancelled: token.isCancellationRequested };
});
connection.onRequest("slow", async (_params, token) => {
  await connection.sendNotification("window/logMessage", { type: 3, message: "slow started" });
  await new Promise((resolve) => token.onCancellationRequested(resolve));
  throw new ResponseError(-32800, "cancelled at the client's request");
});
connection.onRequest("shutdown", () => null);
connection.onNotification("exit", () => process.exit(0));
connection.listen();
