/**
 * The values of the client state: JSON objects read by path, copied along a path when written,
 * extended by an append (a list, a string, base64 bytes). Layer: typed layer (pure functions;
 * `session_state.ts` carries out the four actions with them, `client_state.ts` and
 * `state_fast.ts` read messages with them). The same as the Go runtime's `state_values.go`.
 * `undefined` stands for an absent value throughout (JSON has none).
 */

export type Json = { readonly [key: string]: unknown };


export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value of `value`'s own property `key`; undefined where absent (or `value` no object). */
export function child(value: unknown, key: string): unknown {
  return isObject(value) && Object.hasOwn(value, key) ? value[key] : undefined;
}

/** The value at the path `keys` (a dotted path, split) of `value`; undefined where absent. */
export function read(value: unknown, keys: readonly string[]): unknown {
  let found = value;
  for (let index = 0; index < keys.length && found !== undefined; index++) found = child(found, keys[index] as string);
  return found;
}

/** `object[key] = value` as a JSON object's own property (`__proto__` included). */
export function put(object: { [key: string]: unknown }, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

/** A copy of `value` (an object, or `{}`) with `added` at the path `keys` (undefined: removed);
 * the objects along the path are copied, nothing is changed in place. */
export function written(value: unknown, keys: readonly string[], added: unknown, from = 0): { [key: string]: unknown } {
  const out: { [key: string]: unknown } = isObject(value) ? { ...value } : {};
  const key = keys[from] as string;
  if (from + 1 < keys.length) put(out, key, written(Object.hasOwn(out, key) ? out[key] : undefined, keys, added, from + 1));
  else if (added === undefined) delete out[key];
  else put(out, key, added);
  return out;
}

/** The JSON pointer of the path `keys` under `base`. */
export function pointer(base: string, keys: readonly string[]): string {
  return base + keys.map((key) => "/" + key.replaceAll("~", "~0").replaceAll("/", "~1")).join("");
}

/** A copy of `object` without its property `key` (no `delete`: the copy keeps a fast shape). */
export function without(object: Json, key: string): Json {
  const copy: { [key: string]: unknown } = {};
  for (const name of Object.keys(object)) if (name !== key) put(copy, name, object[name]);
  return copy;
}

export function appendable(current: unknown, value: unknown, base64: boolean): boolean {
  if (base64) {
    const text = current == null ? "" : current;
    return typeof value === "string" && typeof text === "string" && decoded(value) !== null && decoded(text) !== null;
  }
  if (current == null || Array.isArray(current)) return true;
  return typeof current === "string" && typeof value === "string";
}

export function appended(current: unknown, value: unknown, base64: boolean): unknown {
  if (base64) {
    const before = typeof current === "string" ? decoded(current) : null;
    const after = decoded(value as string);
    return Buffer.concat([before ?? Buffer.alloc(0), after ?? Buffer.alloc(0)]).toString("base64");
  }
  if (typeof value === "string" && (typeof current === "string" || current == null)) {
    return (typeof current === "string" ? current : "") + value;
  }
  return Array.isArray(current) ? [...(current as unknown[]), value] : [value];
}

const BASE64 = /^[A-Za-z0-9+/]*(={0,2})$/;

/** The bytes of standard base64 `text`, or null where it is not: the alphabet only, then at most
 * two `=`, padded to whole quads (the Python runtime's `b64decode(validate=True)`). */
function decoded(text: string): Buffer | null {
  const match = BASE64.exec(text);
  if (match === null) return null;
  const pads = (match[1] as string).length;
  const data = (text.length - pads) % 4;
  if (data === 1 || (data === 2 && pads !== 2) || (data === 3 && pads === 0)) return null;
  return Buffer.from(text, "base64");
}
