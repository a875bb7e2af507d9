// Request ids read exactly from a frame's text (runtime/ids.ts): the member of the object itself,
// never a nested one or one inside a string, its spelling kept, its value exact beyond 2^53.
import assert from "node:assert/strict";
import { test } from "node:test";
import { headId, integerId, memberText, readId } from "../src/runtime/ids.js";

test("the id member of the object itself is found, not one nested in params or inside a string", () => {
  const text = '{"jsonrpc":"2.0","method":"m","params":{"id":1,"list":[{"id":2}],"s":"\\"id\\":5,"},"id":3}';
  assert.equal(memberText(text, 0, "id"), "3");
  assert.equal(memberText(text, 0, "params"), '{"id":1,"list":[{"id":2}],"s":"\\"id\\":5,"}');
  assert.equal(memberText('{"a":{"id":1}}', 0, "id"), null);
});

test("whitespace, escaped names and strings ending in backslashes are read as JSON.parse reads them", () => {
  assert.equal(memberText(' { "jsonrpc" : "2.0" ,\t"id" : 7 } ', 0, "id"), "7");
  assert.equal(memberText('{"\\u0069d":8}', 0, "id"), "8");
  assert.equal(memberText('{"s":"a\\\\","id":"x\\\\"}', 0, "id"), '"x\\\\"');
});

test("of a repeated name, the member whose text spells the parsed value is taken (JSON.parse keeps the last)", () => {
  for (const text of ['{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}', '{"id":"a","id":7,"id":2}']) {
    const value = (JSON.parse(text) as { id: number }).id;
    assert.equal(readId(text, 0, "id", value)?.json, "2");
  }
});

test("an integer id beyond 2^53 keeps its digits and its own key", () => {
  const text = '{"jsonrpc":"2.0","id":9007199254741233,"method":"m"}';
  const id = readId(text, 0, "id", (JSON.parse(text) as { id: number }).id);
  assert.deepEqual(id && { json: id.json, key: id.key }, { json: "9007199254741233", key: "9007199254741233" });
  const neighbour = readId('{"id":9007199254741232}', 0, "id", 9007199254741232);
  assert.notEqual(neighbour?.key, id?.key);
});

test("an id must be an int64 integer or a string: fractions, exponents and wider integers are not ids", () => {
  for (const json of ["-9223372036854775808", "9223372036854775807", "0", "-1"]) assert.equal(integerId(json, Number(json))?.json, json);
  for (const json of ["9223372036854775808", "-9223372036854775809", "18446744073709551616", "1.0", "1e30", "1E2", "-0.0"]) {
    assert.equal(integerId(json, Number(json)), null, json);
  }
  assert.equal(integerId("-0", -0)?.key, "0");
  assert.equal(readId('{"id":true}', 0, "id", true), null);
  assert.equal(readId('{"id":null}', 0, "id", null), null);
});

test("a string id is keyed by its value, however it is spelt", () => {
  const escaped = readId('{"id":"\\u00e9"}', 0, "id", "é");
  const plain = readId('{"id":"é"}', 0, "id", "é");
  assert.equal(escaped?.json, '"\\u00e9"');
  assert.equal(escaped?.key, plain?.key);
  assert.notEqual(readId('{"id":"7"}', 0, "id", "7")?.key, readId('{"id":7}', 0, "id", 7)?.key);
});

test("the head of a dropped frame shows its first id exactly", () => {
  assert.equal(headId('{"jsonrpc":"2.0","id":9007199254741233,"method":"session/prompt","params":{"prompt":[')?.json, "9007199254741233");
  assert.equal(headId('{"jsonrpc":"2.0","id":"big-1","method":"x"')?.key, "sbig-1");
  assert.equal(headId('{"jsonrpc":"2.0","id":1.5,"method":"x"'), null);
  assert.equal(headId('{"jsonrpc":"2.0","method":"x","params":{"text":"'), null);
});
