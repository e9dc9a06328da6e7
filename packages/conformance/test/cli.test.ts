// The CLI's refusals, without a server: each is exit status 2 with a line saying what to fix, never a deviation.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { runKit } from "./support/adgateProcess.ts"

const dir = mkdtempSync(join(tmpdir(), "adgate-conformance-cli-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("the conformance CLI's refusals", () => {
  it("no --issuer, an unknown profile or flag: exit 2 and the usage", async () => {
    for (const args of [[], ["--issuer", "http://127.0.0.1:9", "--profile", "oauth-3"], ["--issuer", "http://127.0.0.1:9", "--set", "retryWindow=0"]]) {
      const run = await runKit(args, {}, 60_000)
      expect(run.code, run.stderr).toBe(2)
      expect(run.stderr).toMatch(/--issuer is required|--profile oauth-3: adgate or oauth-2\.1|no profile flag "retryWindow"/)
      expect(run.stderr).toContain("usage: npm run conformance")
    }
  }, 120_000)

  it("the adgate consent driver without CONFORMANCE_EMAIL and CONFORMANCE_PASSWORD: exit 2, naming them", async () => {
    const run = await runKit(["--issuer", "http://127.0.0.1:9", "--consent", "adgate"], { CONFORMANCE_EMAIL: "", CONFORMANCE_PASSWORD: "" }, 60_000)
    expect(run.code).toBe(2)
    expect(run.stderr).toContain("CONFORMANCE_EMAIL with CONFORMANCE_PASSWORD")
  }, 60_000)

  it("a consent module whose default export is not a driver: exit 2", async () => {
    const module = join(dir, "not-a-driver.ts")
    writeFileSync(module, "export default { name: 'x' }\n")
    const run = await runKit(["--issuer", "http://127.0.0.1:9", "--consent", module], {}, 60_000)
    expect(run.code).toBe(2)
    expect(run.stderr).toContain("is not a consent driver")
  }, 60_000)
})
