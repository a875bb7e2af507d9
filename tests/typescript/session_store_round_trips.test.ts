// The PostgreSQL store's cost per batch of session updates: one round trip to the database (one
// query: the session's advisory lock and the append-and-trim statement, its values literals
// escaped by pg), counted by a proxy in front of the server, as the Python and Go stores' are.
// Runs where ACP_TEST_POSTGRES names a server (tests/runtime/test_session_store_postgres_runtimes.py
// passes the pytest run's).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { test } from "node:test";
import { PostgresSessionStore } from "../src/runtime/session_postgres.js";

const POSTGRES = process.env["ACP_TEST_POSTGRES"];
const skip = POSTGRES === undefined ? "no PostgreSQL server (ACP_TEST_POSTGRES unset)" : false;

/** A TCP proxy to the server counting its clients' round trips: each time a client sends after
 * the server last spoke (or first). */
async function roundTrips(dsn: string): Promise<{ dsn: string; count: () => number; close: () => Promise<void> }> {
  const target = new URL(dsn);
  let count = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    let serverSpoke = true;
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.on("close", () => sockets.delete(socket));
    }
    client.on("data", (data) => {
      if (serverSpoke) count += 1;
      serverSpoke = false;
      upstream.write(data);
    });
    upstream.on("data", (data) => {
      serverSpoke = true;
      client.write(data);
    });
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === "object");
  const through = new URL(dsn);
  through.hostname = "127.0.0.1";
  through.port = String(address.port);
  return {
    dsn: through.toString(),
    count: () => count,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const said = (name: string, count: number): unknown[] =>
  Array.from({ length: count }, (_, n) => ({ sessionUpdate: "agent_message_chunk", n: `${name}${n}` }));

test("postgres: a batch of updates is one round trip to the database", { skip }, async () => {
  const proxy = await roundTrips(POSTGRES ?? "");
  const schema = `trips_${randomUUID().replaceAll("-", "")}`;
  const store = await PostgresSessionStore.open(proxy.dsn, { schema, poolSize: 1, historyLimit: 15 });
  try {
    await store.create("s", "/w");
    const trips: number[] = [];
    for (let batch = 0; batch < 3; batch++) {
      const before = proxy.count();
      await store.appendUpdates("s", said(`b${batch}-`, 10));
      trips.push(proxy.count() - before);
    }
    assert.deepEqual(trips, [1, 1, 1]);
    const replay = await store.readUpdates("s");
    const kept = replay.updates.map((update) => (update as { n: string }).n);
    assert.deepEqual(kept, [...said("b1-", 10).slice(5), ...said("b2-", 10)].map((update) => (update as { n: string }).n));
    assert.equal(replay.dropped, 15);
  } finally {
    await store.close();
    await proxy.close();
  }
});

test("postgres: a session id and updates with quotes, backslashes and $names are kept as they are", { skip }, async () => {
  const store = await PostgresSessionStore.open(POSTGRES ?? "", { schema: `quoted_${randomUUID().replaceAll("-", "")}`, historyLimit: 3 });
  const id = `it's $keep \\ "$bodies" $id`;
  const updates = [{ text: "a 'quoted' \\ $updates; DROP TABLE x; --" }, { text: "é\u2028\t\n" }];
  try {
    await store.appendUpdates(id, updates);
    await store.appendUpdates(id, [{ text: "last" }, { text: "past" }]);
    const replay = await store.readUpdates(id);
    assert.deepEqual(replay.updates, [updates[1], { text: "last" }, { text: "past" }]);
    assert.equal(replay.dropped, 1);
    assert.deepEqual((await store.readUpdates("it's")).updates, []);
  } finally {
    await store.close();
  }
});
