// The kit from the outside against adgate's own server process, profile adgate (CI's proof, docs/conformance.md): on
// PostgreSQL when DATABASE_URL is set (as in CI), on the embedded PGlite otherwise. The CLI runs as a user runs it,
// the tour with the real wait past the 30-second window, then random sequences; every rule must pass. The same server
// under a profile it does not keep (strict rotation) must deviate, exit 1 and print the sequence: the kit can fail.
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ruleIds } from "../src/rules.ts"
import type { Report } from "../src/report.ts"
import { type AdgateProcess, startAdgate, runKit } from "./support/adgateProcess.ts"

const onPostgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== ""

describe(`the conformance kit against the adgate server process ${onPostgres ? "on PostgreSQL" : "on PGlite"}`, () => {
  let server: AdgateProcess | undefined
  const out = mkdtempSync(join(tmpdir(), "adgate-conformance-"))

  beforeAll(async () => {
    server = await startAdgate()
  }, 150_000)

  afterAll(async () => {
    await server?.stop()
    rmSync(out, { recursive: true, force: true })
  })

  it("profile adgate: every rule passes, the 30-second wait included, in the table, the JSON and the JUnit XML", async () => {
    const json = join(out, "adgate.json")
    const junit = join(out, "adgate.xml")
    const run = await runKit(["--issuer", server!.origin, "--profile", "adgate", "--consent", "adgate", "--runs", "4", "--seed", "21", "--json", json, "--junit", junit])
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0)
    const report = JSON.parse(readFileSync(json, "utf8")) as Report
    expect(report.quick).toBe(false)
    expect(report.deviations).toEqual([])
    expect(report.rules.map((r) => [r.id, r.verdict])).toEqual(ruleIds.map((id) => [id, "passed"]))
    expect(run.stdout).toContain(`${ruleIds.length} passed, 0 deviated, 0 not applicable`)
    const xml = readFileSync(junit, "utf8")
    expect(xml).toContain(`tests="${ruleIds.length}" failures="0" skipped="0"`)
    expect(xml.match(/<testcase /g)?.length).toBe(ruleIds.length)
  }, 8 * 60_000)

  it("a profile the server does not keep (no retry window) deviates: exit 1, the rule, its spec row and the shrunk sequence", async () => {
    const json = join(out, "strict.json")
    const run = await runKit(["--issuer", server!.origin, "--profile", "adgate", "--set", "retryWindowMs=0", "--quick", "--runs", "20", "--seed", "7", "--json", json])
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(1)
    expect(run.stdout).toContain("--quick: the waits past the retry window were skipped")
    const report = JSON.parse(readFileSync(json, "utf8")) as Report
    const tour = report.deviations.find((d) => d.phase === "tour")
    expect(tour?.rules[0]).toBe("refresh.reuse-ends-grant")
    expect(report.rules.find((r) => r.id === "refresh.reuse-ends-grant")?.verdict).toBe("deviated")
    expect(run.stdout).toContain("breaks: §States: Connection — any other reuse of a spent refresh token")
    // The random phase found it too, shrunk to a replayable sequence of a few steps ending in the spent token presented
    // again (after it, or beside it in parallel).
    const random = report.deviations.find((d) => d.phase === "random")
    expect(random?.replay?.seed).toBe(7)
    expect(random?.rules).toContain("refresh.reuse-ends-grant")
    expect(random!.sequence.length).toBeLessThanOrEqual(4)
    expect(random!.sequence.at(-1)?.command).toMatch(/^refresh\(/)
    expect(run.stdout).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/oauth\/token \[.*grant_type=refresh_token/)
  }, 6 * 60_000)
})
