// A writer process for the PostgreSQL store tests (tests/runtime/test_session_store_postgres_runtimes.py):
// `node postgres_writer.js DSN SCHEMA NAME COUNT` records the session "shared" and merges COUNT
// `_meta` keys `NAME-i` into it, printing each key once its change is acknowledged (committed).
import { PostgresSessionStore } from "../src/runtime/session_postgres.js";

const [dsn = "", schema = "public", name = "ts", count = "1"] = process.argv.slice(2);
const store = await PostgresSessionStore.open(dsn, { schema, policy: "merge", poolSize: 2 });
for (let number = 0; number < Number(count); number++) {
  await store.create("shared", "/w");
  await store.change("shared", { meta: { [`${name}-${number}`]: number } });
  process.stdout.write(`${name}-${number}\n`);
}
await store.close();
