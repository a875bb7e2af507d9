// The envelope rule book (tests/wire/envelope_corpus.json) on the TypeScript runtime: its cases,
// the router every case runs against, the oracle of its rules for one frame (its seeded frames are
// fuzz_frames.ts), and a peer that speaks raw bytes to a connection over streams (so line splitting and the UTF-8
// check run as on a pipe). The Python runtime runs the same book (tests/runtime/envelope_rules.py):
// a rule changed here is changed there. Ids and results are compared through a lossless reading
// of JSON (`readExact`), never through a double, and independently of the runtime's own reader.
import { existsSync, readFileSync } from "node:fs";
import { isUtf8 } from "node:buffer";
import { dirname, join } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { ACP, Connection, LSP, MCP, RequestError, StreamTransport, type CancelDialect, type IncomingRequest, type Router } from "../src/index.js";

// -- the book ------------------------------------------------------------------------------------

export type SendItem = string | { hex: string };
export interface ExpectedAnswer {
  id: string;
  error?: number;
  result?: unknown;
}
export interface Handed {
  method: string;
  params: unknown;
}
export interface Case {
  name: string;
  rule: string;
  dialect?: "lsp" | "mcp";
  send: SendItem[];
  answers: ExpectedAnswer[];
  handled: Handed[];
}
export interface Fuzz {
  seed: number;
  frames: number;
  sha256: string;
  kinds: Array<[string, number]>;
  pieces: Record<string, unknown[]>;
}
export interface Book {
  cases: Case[];
  fuzz: Fuzz;
}

/** The corpus: `ACP_ENVELOPE_CORPUS` when set, else found by walking up from this file to the
 * checkout's tests/wire (the tests run from .build/typescript/dist-test/test). */
function corpusPath(): string {
  const given = process.env["ACP_ENVELOPE_CORPUS"];
  if (given !== undefined && given !== "") return given;
  let folder = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(folder, "tests", "wire", "envelope_corpus.json");
    if (existsSync(candidate)) return candidate;
    const parent = dirname(folder);
    if (parent === folder) throw new Error("tests/wire/envelope_corpus.json not found above this test: set ACP_ENVELOPE_CORPUS");
    folder = parent;
  }
}

export const BOOK = JSON.parse(readFileSync(corpusPath(), "utf8")) as Book;

export const DIALECTS: Record<string, CancelDialect> = { acp: ACP, lsp: LSP, mcp: MCP };

export function frameBytes(item: SendItem): Buffer {
  return typeof item === "string" ? Buffer.from(item, "utf8") : Buffer.from(item.hex, "hex");
}

// -- reading JSON without losing a digit ----------------------------------------------------------

/** A JSON number as written. */
export class JsonNumber {
  constructor(readonly text: string) {}
}

/** A JSON text (already known to be valid: `JSON.parse` read it) with its numbers kept as
 * written; objects have no prototype, and a repeated name keeps its last value, as in `JSON.parse`. */
export function readExact(text: string): unknown {
  let i = 0;
  const space = (): void => {
    while (i < text.length && " \t\n\r".includes(text.charAt(i))) i++;
  };
  const string = (): string => {
    let end = i + 1;
    while (text.charAt(end) !== '"') end += text.charAt(end) === "\\" ? 2 : 1;
    const value = JSON.parse(text.slice(i, end + 1)) as string;
    i = end + 1;
    return value;
  };
  const number = /-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/y;
  const value = (): unknown => {
    space();
    const first = text.charAt(i);
    if (first === "{" || first === "[") {
      const object = first === "{";
      const result: Record<string, unknown> | unknown[] = object ? (Object.create(null) as Record<string, unknown>) : [];
      i++;
      space();
      if (text.charAt(i) === (object ? "}" : "]")) {
        i++;
        return result;
      }
      for (;;) {
        space();
        if (object) {
          const name = string();
          space();
          i++; // the colon
          (result as Record<string, unknown>)[name] = value();
        } else {
          (result as unknown[]).push(value());
        }
        space();
        if (text.charAt(i++) !== ",") return result;
      }
    }
    if (first === '"') return string();
    for (const [word, literal] of [["true", true], ["false", false], ["null", null]] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return literal;
      }
    }
    number.lastIndex = i;
    const found = number.exec(text)?.[0] ?? "";
    i += found.length;
    return new JsonNumber(found);
  };
  return value();
}

const INTEGER = /^-?(?:0|[1-9][0-9]*)$/;

/** A value as comparable text: an integer exactly (as a BigInt), other numbers as doubles,
 * object members sorted. */
export function canonical(value: unknown): string {
  if (value instanceof JsonNumber) {
    return INTEGER.test(value.text) ? BigInt(value.text).toString() : String(Number(value.text));
  }
  if (typeof value === "number") return Number.isInteger(value) ? BigInt(value).toString() : String(value);
  if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
  if (typeof value === "object" && value !== null) {
    const object = value as Record<string, unknown>;
    return "{" + Object.keys(object).sort().map((key) => JSON.stringify(key) + ":" + canonical(object[key])).join(",") + "}";
  }
  return JSON.stringify(value) ?? "undefined";
}

/** One answer as comparable text: its id exactly (7 and "7" differ), then its error code or result. */
export function answerKey(id: unknown, error: number | undefined, result?: unknown): string {
  return error !== undefined ? `id ${canonical(id)} error ${error}` : `id ${canonical(id)} result ${canonical(result ?? null)}`;
}

export type Counter = Map<string, number>;

export function add(counter: Counter, key: string, count = 1): void {
  counter.set(key, (counter.get(key) ?? 0) + count);
}

export function total(counter: Counter): number {
  let sum = 0;
  for (const count of counter.values()) sum += count;
  return sum;
}

export function expectedAnswers(kase: Case): Counter {
  const counter: Counter = new Map();
  for (const answer of kase.answers) add(counter, answerKey(readExact(answer.id), answer.error, answer.result));
  return counter;
}

/** One line: what was missing and what came unexpected, a few of each. */
export function difference(expected: Counter, got: Counter, limit = 3): string {
  const missing: string[] = [];
  const unexpected: string[] = [];
  const over = (from: Counter, minus: Counter, into: string[]): number => {
    let count = 0;
    for (const [key, n] of from) {
      const extra = n - (minus.get(key) ?? 0);
      for (let k = 0; k < extra; k++) if (into.length < limit) into.push(key);
      count += Math.max(0, extra);
    }
    return count;
  };
  const missingCount = over(expected, got, missing);
  const unexpectedCount = over(got, expected, unexpected);
  return `${missingCount} expected answers missing ${JSON.stringify(missing)}, ${unexpectedCount} unexpected ${JSON.stringify(unexpected)}`;
}

export function sameCounts(a: Counter, b: Counter): boolean {
  if (a.size !== b.size) return false;
  for (const [key, n] of a) if (b.get(key) !== n) return false;
  return true;
}

// -- the oracle: one frame, the rules of JSON-RPC 2.0 §4, §5, §5.1 and ACP -------------------------

export interface Outcome {
  answers: Counter;
  handled: Handed[];
}

export function outcome(): Outcome {
  return { answers: new Map(), handled: [] };
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** ACP RequestId: an int64 integer or a string (never a bool, null or a fraction). */
function usable(id: unknown): boolean {
  if (typeof id === "string") return true;
  if (!(id instanceof JsonNumber) || !INTEGER.test(id.text)) return false;
  const value = BigInt(id.text);
  return value >= INT64_MIN && value <= INT64_MAX;
}

const BLANK = new Set([0x20, 0x09, 0x0d, 0x0b, 0x0c]);

/** Adds to `into` what the connection must do with `line`, by the book's rules. A `hold` request
 * is answered -32800: the frame generator always cancels it later. */
export function oracle(line: Buffer, into: Outcome): void {
  if (line.every((byte) => BLANK.has(byte))) return; // a blank line carries no message
  let text: string;
  try {
    if (!isUtf8(line)) throw new Error("not UTF-8");
    text = line.toString("utf8");
    JSON.parse(text);
  } catch {
    add(into.answers, answerKey(null, -32700));
    return;
  }
  const message = readExact(text);
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    add(into.answers, answerKey(null, -32600)); // batches too: ACP has none
    return;
  }
  const has = (name: string): boolean => Object.hasOwn(message, name);
  const fields = message as Record<string, unknown>;
  const answerId = usable(fields["id"]) ? fields["id"] : null;
  if (!has("method")) {
    if (!has("result") && !has("error")) add(into.answers, answerKey(answerId, -32600));
    return; // a response is never answered
  }
  if (has("id") && answerId === null) {
    add(into.answers, answerKey(null, -32600));
    return;
  }
  const method = fields["method"];
  const params = fields["params"];
  if (typeof method !== "string") {
    add(into.answers, answerKey(answerId, -32600));
    return;
  }
  // An object or an array (a number read exactly is an object here, not a structured value).
  const structured = params === undefined || params === null || (typeof params === "object" && !(params instanceof JsonNumber));
  const malformed = fields["jsonrpc"] !== "2.0" || !structured;
  if (malformed || !has("id")) {
    if (malformed && has("id")) add(into.answers, answerKey(answerId, -32600));
    else if (!malformed && method !== "$/cancel_request") into.handled.push({ method, params: params ?? null });
    return;
  }
  if (method === "echo") add(into.answers, answerKey(answerId, undefined, params));
  else add(into.answers, answerKey(answerId, method === "hold" ? -32800 : -32601)); // `$/…` requests: -32601
}

// -- a connection and a raw peer on byte streams ----------------------------------------------------

/** The router of every case: `echo` answers its params, `hold` answers only when cancelled, any
 * other request is -32601; every notification handed over is recorded. */
export class RuleBookRouter implements Router {
  readonly handled: Handed[] = [];

  async request(request: IncomingRequest): Promise<unknown> {
    if (request.method === "echo") return request.params ?? null;
    if (request.method === "hold") {
      await new Promise((resolve) => request.signal.addEventListener("abort", resolve, { once: true }));
      throw request.signal.reason;
    }
    throw RequestError.methodNotFound(request.method);
  }

  received(): void {}

  async notification(method: string, params: unknown): Promise<void> {
    this.handled.push({ method, params: params ?? null });
  }

  cancelledResult(): unknown {
    return undefined;
  }
}

export const PROBE_ID = "probe: the connection still answers";
const PROBE = Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(PROBE_ID)},"method":"echo"}`, "utf8");

/** What a connection did with some frames. */
export interface Observed {
  answers: Counter;
  handled: Handed[];
  connection: Connection;
}

/** What is wrong with an answer's shape (JSON-RPC 2.0 §5), or null. */
function shapeProblem(answer: unknown): string | null {
  if (typeof answer !== "object" || answer === null || Array.isArray(answer)) return `not a response: ${canonical(answer)}`;
  const fields = answer as Record<string, unknown>;
  if (fields["jsonrpc"] !== "2.0" || !Object.hasOwn(fields, "id")) return `not a response: ${canonical(answer)}`;
  if (Object.hasOwn(fields, "result") === Object.hasOwn(fields, "error")) return `not exactly one of result and error: ${canonical(answer)}`;
  const error = fields["error"] as Record<string, unknown> | undefined;
  if (error !== undefined) {
    const code = error["code"];
    if (!(code instanceof JsonNumber) || !INTEGER.test(code.text) || typeof error["message"] !== "string") {
      return `a malformed error object: ${canonical(answer)}`;
    }
  }
  return null;
}

/**
 * Feeds `frames` (then a probe request) to a fresh connection (in `dialect`) over byte streams, `chunk` frames
 * per write, and collects its answers until `count` of them and the probe's have come, then for
 * a short silence.
 */
export async function feed(
  frames: Buffer[],
  count: number,
  options: { chunk?: number; wait?: number; dialect?: CancelDialect } = {},
): Promise<Observed> {
  const { chunk = 1, wait = 2000, dialect = ACP } = options;
  const input = new PassThrough();
  const output = new PassThrough();
  const router = new RuleBookRouter();
  const connection = new Connection(new StreamTransport(input, output), () => router, { dialect });
  const answers: Counter = new Map();
  let probed = false;
  let pending: Buffer = Buffer.alloc(0);
  let wake: (() => void) | null = null;
  output.on("data", (data: Buffer) => {
    pending = pending.length === 0 ? data : Buffer.concat([pending, data]);
    let newline = pending.indexOf(0x0a);
    while (newline !== -1) {
      const line = pending.subarray(0, newline).toString("utf8");
      pending = pending.subarray(newline + 1);
      newline = pending.indexOf(0x0a);
      let answer: unknown;
      try {
        JSON.parse(line); // first: `readExact` reads only valid JSON
        answer = readExact(line);
      } catch {
        add(answers, `not JSON: ${line.slice(0, 80)}`);
        continue;
      }
      const fields = answer as Record<string, unknown>;
      if (fields["id"] === PROBE_ID) {
        probed = true;
        continue;
      }
      const problem = shapeProblem(answer);
      if (problem !== null) {
        add(answers, problem);
        continue;
      }
      const error = fields["error"] as Record<string, unknown> | undefined;
      add(answers, answerKey(fields["id"], error === undefined ? undefined : Number((error["code"] as JsonNumber).text), fields["result"]));
    }
    wake?.();
  });
  const newline = Buffer.from("\n");
  for (let start = 0; start < frames.length; start += chunk) {
    input.write(Buffer.concat(frames.slice(start, start + chunk).flatMap((frame) => [frame, newline])));
  }
  input.write(Buffer.concat([PROBE, newline]));
  const deadline = Date.now() + wait;
  while ((total(answers) < count || !probed) && Date.now() < deadline) {
    await new Promise<void>((resolve) => {
      wake = resolve;
      setTimeout(resolve, 50);
    });
  }
  if (!probed) add(answers, "(the probe was never answered)");
  await new Promise((resolve) => setTimeout(resolve, 20)); // an answer too many shows in `answers`
  return { answers, handled: router.handled, connection };
}
