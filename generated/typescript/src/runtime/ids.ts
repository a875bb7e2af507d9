// Copied by acp-codegen from templates/typescript/runtime/ids.ts: edit it there, then run:
//   make generate
/**
 * Request ids exactly as they travel. Layer: dispatcher.
 *
 * JSON-RPC 2.0 §5: a Response's id "MUST be the same as the value of the id member in the Request
 * Object". `JSON.parse` reads every number as a double, so `9007199254741233` would be read as
 * …232 (and node 20's `JSON.parse` reviver has no source text): the id is read from the frame's
 * own text instead, written back as that text, and the in-flight and pending tables key on its
 * exact value, so requests whose ids round to one double stay two requests.
 *
 * ACP's `RequestId` is "an integer (format int64) or a string": an integer id with a fraction or
 * an exponent, or beyond int64, is not usable (answered -32600 with a null id, as in the Python
 * runtime), nor are `true`, `null`, objects and arrays.
 */

/** A peer's request id as it travelled. */
export interface WireId {
  /** Its JSON text, as the peer wrote it: what an answer writes back. */
  readonly json: string;
  /** Equal for equal ids however they are spelt (`-0` and `0`, `"\u00e9"` and `"é"`): an
   * integer's digits, or `s` and the string. The in-flight and pending tables key on it. */
  readonly key: string;
  /** The id as a JavaScript value; an integer beyond 2^53 is its nearest double here (use
   * `json` or `key` to tell it apart). */
  readonly value: number | string;
}

/** The key of one of our own ids (integers from 0). */
export function ourKey(id: number): string {
  return String(id);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

function skipSpace(text: string, at: number): number {
  let i = at;
  while (isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** The index just past the string whose opening quote is at `at`. */
function stringEnd(text: string, at: number): number {
  let from = at + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return text.length;
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** Whether `text` has a backslash between `from` and `to` (a name written with escapes). */
function hasEscape(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (text.charCodeAt(i) === BACKSLASH) return true;
  return false;
}

/** The index just past the JSON value that starts at `at` (the text is valid JSON). */
function valueEnd(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === QUOTE) return stringEnd(text, at);
  if (first === 0x7b || first === 0x5b) {
    let depth = 0;
    for (let i = at; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === QUOTE) i = stringEnd(text, i) - 1;
      else if (code === 0x7b || code === 0x5b) depth++;
      else if ((code === 0x7d || code === 0x5d) && --depth === 0) return i + 1;
    }
    return text.length;
  }
  let i = at; // a number or a literal: up to the delimiter after it
  for (; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === COMMA || code === 0x7d || code === 0x5d || isSpace(code)) break;
  }
  return i;
}

/**
 * The JSON texts of the members named `name` of the object whose text starts at `at` (after
 * whitespace), in order; only the first when `first`. Only that object's own members are looked
 * at, never nested ones. `text` must be valid JSON (it was parsed first): a name written with
 * escapes (`"\u0069d"`) is decoded, as `JSON.parse` does.
 */
function members(text: string, at: number, name: string, first: boolean): string[] {
  const found: string[] = [];
  let i = skipSpace(text, at);
  if (text.charCodeAt(i) !== 0x7b) return found;
  i = skipSpace(text, i + 1);
  while (text.charCodeAt(i) === QUOTE) {
    const nameEnd = stringEnd(text, i);
    const length = nameEnd - i - 2;
    const named =
      (length === name.length && text.startsWith(name, i + 1)) ||
      (length > name.length && hasEscape(text, i + 1, nameEnd - 1) && JSON.parse(text.slice(i, nameEnd)) === name);
    const start = skipSpace(text, skipSpace(text, nameEnd) + 1); // past the colon
    const end = valueEnd(text, start);
    if (named) {
      found.push(text.slice(start, end));
      if (first) return found;
    }
    i = skipSpace(text, end);
    if (text.charCodeAt(i) !== COMMA) return found;
    i = skipSpace(text, i + 1);
  }
  return found;
}

/** The JSON text of the first member `name` of the object at `at` in `text`, or null. */
export function memberText(text: string, at: number, name: string): string | null {
  return members(text, at, name, true)[0] ?? null;
}

const INTEGER = /^-?(?:0|[1-9][0-9]*)$/;
const INT64_MAX = "9223372036854775807";
const INT64_MIN_DIGITS = "9223372036854775808";

/** Whether the digits of an integer's JSON text fit ACP's int64. */
function inInt64(json: string): boolean {
  const negative = json.charCodeAt(0) === 0x2d;
  const digits = negative ? json.length - 1 : json.length;
  if (digits !== 19) return digits < 19;
  return (negative ? json.slice(1) : json) <= (negative ? INT64_MIN_DIGITS : INT64_MAX);
}

/** The id a number's JSON text spells, or null when it is not an int64 integer. */
export function integerId(json: string, value: number): WireId | null {
  return INTEGER.test(json) ? wholeId(json, value) : null;
}

/** The id of an integer's JSON text (`-?digits`), or null beyond int64. */
function wholeId(json: string, value: number): WireId | null {
  if (!inInt64(json)) return null;
  return { json, key: json === "-0" ? "0" : json, value };
}

/** The id a string's JSON text spells. */
export function stringId(json: string, value: string): WireId {
  return { json, key: "s" + value, value };
}

/** Whether a member's text spells the value `JSON.parse` read. */
function spells(json: string, value: number | string): boolean {
  if (typeof value === "number") return json.charCodeAt(0) !== QUOTE && Number(json) === value;
  if (json.charCodeAt(0) !== QUOTE) return false;
  if (json.length === value.length + 2 && json.startsWith(value, 1) && !value.includes("\\")) return true;
  return JSON.parse(json) === value;
}

/**
 * The usable id of member `name` of the object at `at` in `text`, whose parsed value is `value`;
 * null when it is not usable (not an int64 integer, nor a string). The first member is taken
 * when it spells `value` (the usual single member); of a repeated name whose first member does
 * not, the last that does (`JSON.parse` keeps the last value).
 */
export function readId(text: string, at: number, name: string, value: unknown): WireId | null {
  if (typeof value !== "number" && typeof value !== "string") return null;
  let json = memberText(text, at, name);
  if (json === null || !spells(json, value)) {
    json = null;
    for (const member of members(text, at, name, false)) if (spells(member, value)) json = member;
  }
  if (typeof value === "string") return stringId(json ?? JSON.stringify(value), value);
  return json === null ? null : integerId(json, value);
}

/** How our runtime and the official SDKs start a request or a response. */
const USUAL_START = '{"jsonrpc":"2.0","id":';

/** The text of an integer id right after `USUAL_START`, or null when the frame starts otherwise
 * (any layout is still read, by `readId`; this one is read without a scan). */
function usualInteger(text: string): string | null {
  if (text.lastIndexOf(USUAL_START, 0) !== 0) return null; // a prefix test (faster than startsWith on node 20)
  const start = USUAL_START.length;
  let i = text.charCodeAt(start) === 0x2d ? start + 1 : start;
  const digits = i;
  for (let code = text.charCodeAt(i); code >= 0x30 && code <= 0x39; code = text.charCodeAt(++i));
  const after = text.charCodeAt(i);
  return i > digits && (after === COMMA || after === 0x7d) ? text.slice(start, i) : null;
}

/** The usable id of a frame (its top-level `id` member), whose parsed value is `value`; null
 * when it is not usable. */
export function frameId(text: string, value: unknown): WireId | null {
  if (typeof value === "number") {
    const json = usualInteger(text);
    if (json !== null && Number(json) === value) return wholeId(json, value);
  }
  return readId(text, 0, "id", value);
}

/** The id a dropped frame's head shows (its first `"id"` member, as in the Python runtime: ACP
 * messages put `id` before `params` and `result`), or null. */
export function headId(head: string): WireId | null {
  const found = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,256}")\s*[,}]/.exec(head);
  const json = found?.[1];
  if (json === undefined) return null;
  const value: unknown = JSON.parse(json);
  return typeof value === "string" ? stringId(json, value) : integerId(json, value as number);
}
