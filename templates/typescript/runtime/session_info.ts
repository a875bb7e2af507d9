/**
 * `session_info_update` semantics: tri-state fields and the `_meta` policy, as pure functions.
 * Layer: typed layer (a helper for clients that keep session state, and agents that persist it).
 *
 * For each of `title`, `updatedAt` and `_meta`: absent means unchanged, `null` clears it, a value
 * sets it ("Only include fields that have changed — omitted fields are left unchanged"; "Set to
 * `null` to clear", ACP session-list.mdx). Updates apply in arrival order. A field of the wrong
 * type is ignored and the rest applies (`x-deserialize-default-on-error`).
 *
 * A `_meta` object is applied by one of three policies, chosen explicitly (each edition exports its
 * own as `SESSION_INFO_META_POLICY`, from the IR's behaviour rules):
 * - `"merge"` (the default; v1, the session-info-update RFD's semantics before PR #1573): merged
 *   into the stored object recursively: nested objects merge, a `null` leaf deletes that key, any
 *   other value replaces (the rules of RFC 7396 JSON Merge Patch);
 * - `"replace"` (v1's stabilized text: "a metadata object for clients and extensions to
 *   interpret"): the object replaces the stored one;
 * - `"patch"` (v2, SessionInfoUpdate._meta): "An object patches the stored metadata by top-level
 *   key: keys it omits are unchanged, a key set to `null` is removed, and any other value replaces
 *   that key's stored value without merging nested objects."
 */

export type MetaPolicy = "merge" | "replace" | "patch";

export type JsonObject = { [key: string]: unknown };

/** What a session's info updates have set so far (null: never set, or cleared). */
export interface SessionInfo {
  readonly title: string | null;
  readonly updatedAt: string | null;
  readonly meta: JsonObject | null;
}

export const EMPTY_SESSION_INFO: SessionInfo = { title: null, updatedAt: null, meta: null };

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `stored` with `patch` merged in recursively; neither input is changed or shared. */
export function mergeMeta(stored: JsonObject, patch: JsonObject): JsonObject {
  const merged: JsonObject = structuredClone(stored);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete merged[key];
    } else if (isObject(value)) {
      const base = merged[key];
      merged[key] = mergeMeta(isObject(base) ? base : {}, value);
    } else {
      merged[key] = structuredClone(value);
    }
  }
  return merged;
}

/** `stored` patched by top-level key (v2): an omitted key is unchanged, a `null` key removed, any
 * other value replaces that key whole (nested objects are not merged); inputs are not shared. */
export function patchMeta(stored: JsonObject, patch: JsonObject): JsonObject {
  const patched: JsonObject = structuredClone(stored);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete patched[key];
    else patched[key] = structuredClone(value);
  }
  return patched;
}

/** `info` after one `session_info_update` (its wire form: `title`, `updatedAt`, `_meta`). */
export function applySessionInfoUpdate(
  info: SessionInfo,
  wire: object,
  policy: MetaPolicy = "merge",
): SessionInfo {
  const update = wire as { readonly [key: string]: unknown };
  let { title, updatedAt, meta } = info;
  const given = (key: string): boolean => Object.hasOwn(update, key);
  if (given("title") && (update.title === null || typeof update.title === "string")) title = update.title;
  if (given("updatedAt") && (update.updatedAt === null || typeof update.updatedAt === "string")) {
    updatedAt = update.updatedAt;
  }
  const patch = update._meta;
  if (given("_meta") && (patch === null || isObject(patch))) {
    if (patch === null) meta = null;
    else if (policy === "replace") meta = structuredClone(patch);
    else if (policy === "patch") meta = patchMeta(meta ?? {}, patch);
    else meta = mergeMeta(meta ?? {}, patch);
  }
  return { title, updatedAt, meta };
}
