/**
 * Run-time checks of incoming values against the schema: the decoders every generated `decode.ts`
 * is built from. Layer: typed layer (below it the dispatcher hands over parsed JSON, never a
 * model).
 *
 * A decoder takes a parsed JSON value and returns it, checked, or throws a `DecodeError` naming
 * where the value is wrong (a JSON pointer) and what was expected. Objects are checked in place
 * (a valid one is returned as it is, never copied) and kept open: fields the schema does not name
 * are kept, as ACP objects are extensible. The value given is never changed: where the schema's
 * lenient rules apply, the result is a copy of the objects and arrays on the way to the change
 * (copy on write), so the message as received (a handler's raw params, the client state, a
 * failed shape of an `anyOf` the next one tries) keeps what the decoded value drops:
 * - `x-deserialize-default-on-error`: a field whose value does not check is removed (absent means
 *   its default) and the rest of the object is kept;
 * - `x-deserialize-default-on-null`: `null` means the default: the field is removed;
 * - `x-deserialize-skip-invalid-items`: array items that do not check are dropped.
 * Absent, `null` and a value stay three different things: nothing here turns one into another
 * except those rules.
 */

export type Decoder<T = unknown> = (value: unknown) => T;

/**
 * The tag of a tagged-union variant this schema does not know (a newer peer's): a string at run
 * time, typed apart from every known tag so that `switch (update.sessionUpdate)` narrows to the
 * known variants and leaves the unknown one to `default`.
 */
export type UnknownTag = `${string}\u{0}unknown-tag`;

/** A value that does not match the schema: `pointer` says where (`/update/content/text`). */
export class DecodeError extends Error {
  readonly path: Array<string | number> = [];

  constructor(readonly expected: string) {
    super(); // no own `message`: the getter below composes it with the path found so far
    this.name = "DecodeError";
  }

  /** The JSON pointer (RFC 6901) of the offending value, relative to the decoded one. */
  get pointer(): string {
    return this.path.map((part) => "/" + String(part).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
  }

  override get message(): string {
    return `${this.pointer || "/"}: expected ${this.expected}`;
  }

  /** Adds one level of the path while the error travels up (costs nothing when values check). */
  at(part: string | number): DecodeError {
    this.path.unshift(part);
    return this;
  }
}

function fail(expected: string, value: unknown): never {
  throw new DecodeError(`${expected}, got ${describe(value)}`);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `the string ${JSON.stringify(value.slice(0, 40))}`;
  if (typeof value === "object") return "an object";
  return `${typeof value} ${String(value)}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function within(expected: string, min: number | null, max: number | null): Decoder {
  return (value) => {
    if ((min !== null && (value as number) < min) || (max !== null && (value as number) > max)) {
      fail(`${expected} in [${min ?? "-∞"}, ${max ?? "∞"}]`, value);
    }
    return value;
  };
}

export const any: Decoder = (value) => value;

export const string: Decoder = (value) => (typeof value === "string" ? value : fail("a string", value));

export const boolean: Decoder = (value) => (typeof value === "boolean" ? value : fail("a boolean", value));

export const number: Decoder = (value) =>
  typeof value === "number" && Number.isFinite(value) ? value : fail("a number", value);

export const integer: Decoder = (value) => (Number.isInteger(value) ? value : fail("an integer", value));

export const nullOnly: Decoder = (value) => (value === null ? value : fail("null", value));

/** A string of `minLength` to `maxLength` characters (null: no bound) matching `pattern`. A
 * character is a Unicode code point, as JSON Schema counts them ("The length of a string instance
 * is defined as the number of its characters as defined by RFC 8259"), not a UTF-16 unit. */
export function stringWith(
  minLength: number | null,
  pattern: string | null,
  maxLength: number | null = null,
): Decoder {
  const regex = pattern === null ? null : new RegExp(pattern, "u");
  return (value) => {
    string(value);
    const text = value as string;
    if (minLength !== null || maxLength !== null) {
      const length = codePoints(text);
      if (minLength !== null && length < minLength) fail(`a string of at least ${minLength} characters`, value);
      if (maxLength !== null && length > maxLength) fail(`a string of at most ${maxLength} characters`, value);
    }
    if (regex !== null && !regex.test(text)) fail(`a string matching ${pattern}`, value);
    return value;
  };
}

function codePoints(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index++;
    }
    count++;
  }
  return count;
}

export function integerIn(min: number | null, max: number | null): Decoder {
  const range = within("an integer", min, max);
  return (value) => range(integer(value));
}

export function numberIn(min: number | null, max: number | null): Decoder {
  const range = within("a number", min, max);
  return (value) => range(number(value));
}

export function constant(expected: unknown): Decoder {
  return (value) => (value === expected ? value : fail(JSON.stringify(expected), value));
}

export function oneOf(values: readonly unknown[]): Decoder {
  const allowed = new Set(values);
  const expected = `one of ${values.map((v) => JSON.stringify(v)).join(", ")}`;
  return (value) => (allowed.has(value) ? value : fail(expected, value));
}

export function nullable(inner: Decoder): Decoder {
  return (value) => (value === null ? value : inner(value));
}

/** One of `options`, told apart by shape: the first that checks wins. */
export function anyOf(options: readonly Decoder[]): Decoder {
  return (value) => {
    const errors: DecodeError[] = [];
    for (const option of options) {
      try {
        return option(value);
      } catch (error) {
        if (!(error instanceof DecodeError)) throw error;
        errors.push(error);
      }
    }
    return fail(`one of ${options.length} shapes (${errors.map((e) => e.message).join("; ")})`, value);
  };
}

export function array(item: Decoder, minItems: number | null, skipInvalid: boolean): Decoder {
  return (value) => {
    if (!Array.isArray(value)) fail("an array", value);
    const items = value as unknown[];
    let kept: unknown[] | null = null; // a copy, made only once an item is dropped or replaced
    for (let index = 0; index < items.length; index++) {
      let decoded: unknown;
      try {
        decoded = item(items[index]);
      } catch (error) {
        if (!(error instanceof DecodeError)) throw error;
        if (!skipInvalid) throw error.at(index);
        kept ??= items.slice(0, index);
        continue;
      }
      if (kept === null && decoded !== items[index]) kept = items.slice(0, index);
      kept?.push(decoded);
    }
    const result = kept ?? items;
    if (minItems !== null && result.length < minItems) fail(`at least ${minItems} items`, value);
    return result;
  };
}

export function record(values: Decoder): Decoder {
  return (value) => {
    if (!isObject(value)) fail("an object", value);
    const object = value as Record<string, unknown>;
    let changed: Record<string, unknown> | null = null; // a copy, made once a value changes
    for (const key of Object.keys(object)) {
      try {
        const decoded = values(object[key]);
        if (decoded !== object[key]) (changed ??= { ...object })[key] = decoded;
      } catch (error) {
        throw error instanceof DecodeError ? error.at(key) : error;
      }
    }
    return changed ?? object;
  };
}

export const OPTIONAL = 0;
export const REQUIRED = 1;
export const DEFAULT_ON_ERROR = 2;
export const DEFAULT_ON_NULL = 4;

/** A struct field: its wire name, its decoder and its flags (`REQUIRED | DEFAULT_ON_ERROR`…). */
export type Field = readonly [name: string, decode: Decoder, flags: number];

/** An object with known fields (others are kept). */
export function struct(fields: readonly Field[]): Decoder {
  return (value) => {
    if (!isObject(value)) fail("an object", value);
    const object = value as Record<string, unknown>;
    let changed: Record<string, unknown> | null = null; // a copy, made once a rule changes a field
    for (const [name, decode, flags] of fields) {
      const field = object[name];
      if (field === undefined && !Object.hasOwn(object, name)) {
        if (flags & REQUIRED) throw new DecodeError("a required field").at(name);
        continue;
      }
      if (field === null && flags & DEFAULT_ON_NULL) {
        delete (changed ??= { ...object })[name];
        continue;
      }
      try {
        const decoded = decode(field);
        if (decoded !== field) (changed ??= { ...object })[name] = decoded;
      } catch (error) {
        if (!(error instanceof DecodeError)) throw error;
        if (!(flags & DEFAULT_ON_ERROR)) throw error.at(name);
        delete (changed ??= { ...object })[name];
      }
    }
    return changed ?? object;
  };
}

/**
 * Objects told apart by the value of `tag`. An object without the tag (or with `null`) is the
 * `fallback` variant when the union has one; a tag the schema does not know is kept whole by
 * `unknown` (a newer peer's variant is never rejected, nor taken for the default one).
 */
export function tagged(
  tag: string,
  variants: ReadonlyMap<unknown, Decoder>,
  unknown: Decoder,
  fallback: Decoder | null,
): Decoder {
  return (value) => {
    if (!isObject(value)) fail("an object", value);
    const key = (value as Record<string, unknown>)[tag];
    const variant = variants.get(key);
    if (variant !== undefined) return variant(value);
    if (key === undefined || key === null) {
      if (fallback !== null) return fallback(value);
      throw new DecodeError(`the tag field ${JSON.stringify(tag)}`).at(tag);
    }
    return unknown(value);
  };
}
