// The kit fails a store that breaks its promise: a code store whose save reads, yields and then writes passes a
// single-caller check but lets racing exchanges of one code both land. The kit's races are run on it in a vitest of
// their own (fixtures/readThenWrite.fixture.ts): the races that save codes must fail, the others pass.
import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"

const fixtures = join(import.meta.dirname, "fixtures")

describe("the contract kit", () => {
  it("fails a code store whose compare-and-set is a read then a write, and only on the races that save codes", { timeout: 120_000 }, async () => {
    const report = join(mkdtempSync(join(tmpdir(), "adgate-kit-")), "report.json")
    await promisify(execFile)("npx", ["vitest", "run", "--config", join(fixtures, "vitest.config.ts"), "--reporter=json", `--outputFile=${report}`],
      { cwd: join(fixtures, "../../../..") }).catch(() => undefined)
    const results = (JSON.parse(readFileSync(report, "utf8")) as { testResults: Array<{ assertionResults: Array<{ title: string; status: string }> }> })
      .testResults.flatMap((f) => f.assertionResults)
    const failed = results.filter((t) => t.status === "failed").map((t) => t.title).sort()
    assert.deepStrictEqual(failed, [
      "32 concurrent saves of one code from the same loaded version: exactly one succeeds (RFC 6749 §4.1.2)",
      "32 concurrent token exchanges of one code: exactly one answers tokens (RFC 6749 §4.1.2)"
    ])
    assert.isAtLeast(results.filter((t) => t.status === "passed").length, 10)
  })
})
