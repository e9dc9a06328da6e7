// Mutants of adgate under the kit (docs/conformance.md, "Mutants"): each patch in packages/conformance/mutants/ is
// applied to a temporary copy of the sources, that copy's server runs as its own process, and the kit, profile
// adgate, must deviate on the rule the mutant breaks. The compare-and-set mutant needs PostgreSQL's concurrency (the
// embedded PGlite runs one transaction at a time, so racing refreshes never overlap there): with DATABASE_URL only.
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import type { Report } from "../src/report.ts"
import { mutantCopy, root, runKit, startAdgate } from "./support/adgateProcess.ts"

const onPostgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== ""

const underTheKit = async (patch: string, args: ReadonlyArray<string>): Promise<{ readonly report: Report; readonly stdout: string }> => {
  const copy = await mutantCopy(join(root, "packages", "conformance", "mutants", patch))
  const server = await startAdgate(copy.root).catch((error: unknown) => { copy.remove(); throw error })
  const out = mkdtempSync(join(tmpdir(), "adgate-mutants-"))
  try {
    const json = join(out, `${patch}.json`)
    const run = await runKit(["--issuer", server.origin, "--profile", "adgate", "--quick", "--json", json, ...args])
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(1)
    return { report: JSON.parse(readFileSync(json, "utf8")) as Report, stdout: run.stdout }
  } finally {
    await server.stop()
    copy.remove()
    rmSync(out, { recursive: true, force: true })
  }
}

describe.skipIf(!onPostgres)("mutants of adgate under the conformance kit, on PostgreSQL", () => {
  it("a refresh store without its compare-and-set: parallel refreshes with one token leave more than one pair working", async () => {
    const { report, stdout } = await underTheKit("refresh-store-without-compare-and-set.patch", ["--runs", "0", "--parallel", "4"])
    const deviation = report.deviations.find((d) => d.sequence.some((s) => /in parallel/.test(s.command)))
    expect(deviation, stdout).toBeDefined()
    expect(deviation!.rules[0]).toMatch(/^(refresh\.race|access\.withdrawn|refresh\.reuse-ends-grant)$/)
  }, 5 * 60_000)

  it("a retry window that ignores whether the successor was used: a token spent two rotations ago is honoured", async () => {
    const { report, stdout } = await underTheKit("retry-window-ignores-used-successor.patch", ["--runs", "40", "--seed", "3", "--parallel", "2"])
    // The tour's retry-window segment shows it, and the random sequences shrink it to a grant, a rotation and the
    // spent token presented again beside or after a use of its successor.
    expect(report.deviations.find((d) => d.phase === "tour")?.command, stdout).toMatch(/^refresh\(/)
    const random = report.deviations.find((d) => d.phase === "random")
    expect(random, stdout).toBeDefined()
    expect(["refresh.race", "refresh.retry-window", "refresh.reuse-ends-grant"]).toContain(random!.rules[0])
    expect(random!.sequence.length, stdout).toBeLessThanOrEqual(5)
  }, 5 * 60_000)
})
