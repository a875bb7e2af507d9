// A recording replayed through the TypeScript runtime (layer: field tooling): the twin of
// tests/field/replay.py (its docstring says what the output holds), the same walk with this
// runtime's generated method tables (METHODS, `decode`) and its ClientState + STATE_TABLE.
// Compiled against the built package (.build/typescript) by tests/field/replay_builds.py.
//
//   node replay.js RECORDING.jsonl   → one JSON object on stdout
import { readFileSync } from "node:fs";
import { ClientState, DecodeError, type Decoder, type StateTable } from "acp-protocol-sdk";
import * as v1 from "acp-protocol-sdk/v1";
import * as v1u from "acp-protocol-sdk/v1/unstable";
import * as v2 from "acp-protocol-sdk/v2";
import * as v2u from "acp-protocol-sdk/v2/unstable";

type Json = Record<string, unknown>;
interface Frame {
  index: number;
  line: number;
  dir: "sent" | "received";
  value: unknown;
}
interface Spec {
  readonly name: string;
  readonly kind: "request" | "notification";
  readonly params: Decoder;
  readonly result: Decoder | null;
}
interface Edition {
  readonly name: string;
  readonly methods: readonly Spec[];
  readonly error: Decoder;
}

const EDITIONS: Record<string, { editions: Edition[]; table: StateTable }> = {
  v1: {
    editions: [
      { name: "v1", methods: v1.METHODS, error: v1.decode.Error },
      { name: "v1/unstable", methods: v1u.METHODS, error: v1u.decode.Error },
    ],
    table: v1u.STATE_TABLE,
  },
  v2: {
    editions: [
      { name: "v2", methods: v2.METHODS, error: v2.decode.Error },
      { name: "v2/unstable", methods: v2u.METHODS, error: v2u.decode.Error },
    ],
    table: v2u.STATE_TABLE,
  },
};

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function frames(path: string): Frame[] {
  const found: Frame[] = [];
  let index = 0;
  readFileSync(path, "utf8")
    .split("\n")
    .forEach((text, at) => {
      if (text.trim() === "") return;
      const record: unknown = JSON.parse(text);
      if (!isObject(record) || (record["dir"] !== "sent" && record["dir"] !== "received")) return;
      const value = "json" in record ? record["json"] : null;
      // Each message of a JSON-RPC batch is one, under its frame's index.
      const messages = Array.isArray(value) && value.length > 0 ? value : [value];
      for (const message of messages) found.push({ index, line: at + 1, dir: record["dir"], value: message });
      index += 1;
    });
  return found;
}

function negotiated(all: Frame[]): number {
  let asked: unknown = undefined;
  for (const { dir, value } of all) {
    if (!isObject(value)) continue;
    if (dir === "sent" && value["method"] === "initialize") asked = value["id"];
    else if (dir === "received" && !("method" in value) && "id" in value && same(value["id"], asked)) {
      const version = isObject(value["result"]) ? value["result"]["protocolVersion"] : undefined;
      return Number.isInteger(version) ? (version as number) : 1;
    }
  }
  return 1;
}

function same(a: unknown, b: unknown): boolean {
  return typeof a === typeof b && JSON.stringify(a) === JSON.stringify(b);
}

function idKey(dir: string, id: unknown): string {
  return `${dir}:${typeof id}:${JSON.stringify(id)}`;
}

function spec(edition: Edition, method: string, request: boolean): Spec | undefined {
  const kinds = request ? ["request", "notification"] : ["notification", "request"];
  for (const kind of kinds) {
    const found = edition.methods.find((m) => m.name === method && m.kind === kind);
    if (found !== undefined) return found;
  }
  return undefined;
}

function escape(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** The pointer of the first place where `kept` is not `given` (null: they are equal). */
function firstDifference(given: unknown, kept: unknown, pointer: string): string | null {
  if (isObject(given) && isObject(kept)) {
    const keys = [...new Set([...Object.keys(given), ...Object.keys(kept)])].sort();
    for (const key of keys) {
      if (!(key in given) || !(key in kept)) return `${pointer}/${escape(key)}`;
      const found = firstDifference(given[key], kept[key], `${pointer}/${escape(key)}`);
      if (found !== null) return found;
    }
    return null;
  }
  if (Array.isArray(given) && Array.isArray(kept) && given.length === kept.length) {
    for (let i = 0; i < given.length; i++) {
      const found = firstDifference(given[i], kept[i], `${pointer}/${i}`);
      if (found !== null) return found;
    }
    return null;
  }
  return given === kept ? null : pointer;
}

function replay(path: string): Json {
  const all = frames(path);
  const protocol = `v${negotiated(all)}`;
  const { editions, table } = EDITIONS[protocol] ?? EDITIONS["v1"]!;
  const widest = editions[editions.length - 1]!;
  const state = new ClientState(table);
  const problems: Json[] = [];
  const dropped: Json[] = [];
  const extensions: Json[] = [];
  const unknown: Json[] = [];
  const asked = new Map<string, [string, unknown]>();
  for (const { index, line, dir, value } of all) {
    const where = { frame: index, line, dir };
    if (!isObject(value)) {
      problems.push({ ...where, edition: protocol, method: null, pointer: "", message: "not a JSON-RPC message" });
      continue;
    }
    let method = value["method"];
    let part: string;
    let payload: unknown;
    let params: unknown = undefined;
    let decoders: Array<[Edition, Decoder | null]>;
    if (typeof method === "string") {
      const request = "id" in value;
      if (request) asked.set(idKey(dir, value["id"]), [method, value["params"]]);
      if (method.startsWith("_")) {
        extensions.push({ ...where, method });
        continue;
      }
      part = "params";
      payload = "params" in value ? value["params"] : {};
      const name = method;
      decoders = editions.map((e) => [e, spec(e, name, request)?.params ?? null]);
    } else {
      if ("result" in value) [part, payload] = ["result", value["result"]];
      else if ("error" in value) [part, payload] = ["error", value["error"]];
      else continue;
      const found = asked.get(idKey(dir === "sent" ? "received" : "sent", value["id"]));
      if (found === undefined || found[0].startsWith("_")) continue;
      [method, params] = found;
      const name = found[0];
      decoders = editions.map((e) => {
        const s = spec(e, name, true);
        return [e, s === undefined ? null : part === "result" ? s.result : e.error];
      });
    }
    let ok = true;
    for (const [edition, decoder] of decoders) {
      if (decoder === null) {
        if (edition === widest) {
          unknown.push({ ...where, method });
          ok = false;
        }
        continue;
      }
      try {
        const lost = firstDifference(payload, decoder(structuredClone(payload)), `/${part}`);
        if (lost !== null) dropped.push({ ...where, edition: edition.name, method, pointer: lost });
      } catch (error) {
        if (!(error instanceof DecodeError)) throw error;
        const pointer = `/${part}${error.pointer}`;
        ok = false;
        problems.push({ ...where, edition: edition.name, method, pointer, message: error.message });
      }
    }
    if (!ok) continue; // a client feeds its state only what decodes
    if ("method" in value) {
      if (dir === "received" || method === table.turn) state.apply({ method: method as string, params: payload });
    } else if (dir === "received" && part === "result") {
      state.apply({ method: method as string, params, result: payload });
    }
  }
  return { protocol, problems, dropped, extensions, unknown, state: state.snapshot() };
}

const [path] = process.argv.slice(2);
if (path === undefined) {
  process.stderr.write("usage: node replay.js RECORDING.jsonl\n");
  process.exit(2);
}
process.stdout.write(JSON.stringify(replay(path)) + "\n");
