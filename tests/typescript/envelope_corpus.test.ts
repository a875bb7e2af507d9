// The envelope rule book (tests/wire/envelope_corpus.json), case by case, on the TypeScript
// runtime: each case is a fresh connection (in the case's cancellation dialect) over byte streams
// fed the case's lines; it must write exactly the case's answers (ids compared exactly) and hand
// exactly the case's notifications to its router, and still answer a probe afterwards. The Python
// runtime runs the same file (tests/runtime/test_envelope_corpus.py).
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  BOOK,
  DIALECTS,
  canonical,
  difference,
  expectedAnswers,
  feed,
  frameBytes,
  oracle,
  outcome,
  sameCounts,
  total,
} from "./envelope.js";

for (const kase of BOOK.cases) {
  test(`rule book: ${kase.name}`, async () => {
    const expected = expectedAnswers(kase);
    const dialect = DIALECTS[kase.dialect ?? "acp"];
    const { answers, handled, connection } = await feed(kase.send.map(frameBytes), total(expected), dialect === undefined ? {} : { dialect });
    try {
      assert.ok(sameCounts(answers, expected), `${kase.name}: ${difference(expected, answers)}`);
      assert.equal(canonical(handled), canonical(kase.handled), `${kase.name}: handed ${canonical(handled)}, expected ${canonical(kase.handled)}`);
    } finally {
      await connection.close();
    }
  });
}

test("the oracle reads every one-frame case of the rule book (in the ACP dialect) as the book does", () => {
  const wrong: string[] = [];
  for (const kase of BOOK.cases) {
    if (kase.send.length !== 1 || kase.dialect !== undefined) continue;
    const predicted = outcome();
    oracle(frameBytes(kase.send[0] as string), predicted);
    if (!sameCounts(predicted.answers, expectedAnswers(kase)) || canonical(predicted.handled) !== canonical(kase.handled)) {
      wrong.push(kase.name);
    }
  }
  assert.deepEqual(wrong, [], `the oracle disagrees with ${wrong.length} cases: ${wrong.join(", ")}`);
});
