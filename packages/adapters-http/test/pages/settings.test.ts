// The workspace Settings page over HTTP (docs/service.md, Pages: "Workspace settings"): every member reads the
// guardrails, an admin changes them (refusals say why and save nothing), CSRF, another workspace's member; the
// credits ledger newest first, a page at a time. On memory, PGlite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { creditHistoryPageSize, CreditsLedger, showGuardrails } from "@adgate/core"
import { Effect } from "effect"
import { pagePaths } from "../../src/pages/pagePaths.ts"
import { capFields } from "../../src/pages/SettingsRoutes.ts"
import { type Browser, noticeIn, type PageServer, pageServers, signedIn, type StartedServer } from "./pageServers.ts"

const problemIn = (page: string): string => /<p class="alert" role="alert">([^<]*)<\/p>/.exec(page)?.[1] ?? ""
/** The ledger rows' "For" cells, in page order. */
const reasonsIn = (page: string): ReadonlyArray<string> =>
  [...(/<section class="card" id="credits">[\s\S]*?<\/section>/.exec(page)?.[0] ?? "").matchAll(/<tr>\n(?:<td[^>]*>[^\n]*<\/td>\n){4}<td>([^<]*)<\/td>/g)].map((m) => m[1] ?? "")

for (const [name, runs, start] of pageServers) {
  describe.skipIf(!runs)(`Settings page (${name})`, () => {
    let started: StartedServer
    let server: PageServer
    let admin: Browser
    let editor: Browser
    let viewer: Browser
    const settings = () => pagePaths.settings(server.workspaces.paid.id)
    const save = (who: Browser, fields: Readonly<Record<string, string>>, csrf?: string | null) =>
      who.post(`${settings()}/guardrails`, {
        max_budget_change_percent: "", max_changes_per_day: "", max_daily_budget_per_account: "", protected_names: "", ...fields
      }, csrf === undefined ? {} : { csrf })
    const stored = () => server.run(showGuardrails(server.workspaces.paid.id))

    beforeAll(async () => {
      started = await start()
      server = started.server
      ;({ admin, editor, viewer } = await signedIn(server))
    }, 120_000)
    afterAll(() => started?.close())

    it("the form has an input for every cap the core's guardrails have", async () => {
      const page = (await admin.get(settings())).text
      for (const cap of Object.keys(capFields)) expect(page).toContain(`name="${cap.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}"`)
      expect(page).toContain(`name="protected_names"`)
    })

    it("an admin saves caps and protected names; an empty cap is not set; the page shows them again", async () => {
      const answer = await save(admin, { max_budget_change_percent: "20", max_changes_per_day: "5", protected_names: "Brand*\r\n\r\n  *black friday*  " })
      expect(answer.status).toBe(303)
      expect(await noticeIn(admin, answer)).toBe("The guardrails are saved.")
      const saved = await stored()
      expect([saved.maxBudgetChangePercent, saved.maxChangesPerDay, saved.maxDailyBudgetPerAccount, saved.protectedNames, saved.updatedBy])
        .toEqual([20, 5, null, ["Brand*", "*black friday*"], server.users.admin.id])
      const page = (await admin.get(settings())).text
      expect(page).toContain(`name="max_budget_change_percent" type="number" min="0" step="any" value="20"`)
      expect(page).toContain("Brand*\n*black friday*</textarea>")
    })

    it("a negative or fractional count, a word, or an over-long pattern is refused with the reason and saves nothing", async () => {
      const before = await stored()
      for (const [fields, words] of [
        [{ max_changes_per_day: "1.5" }, "max changes per day must be a whole number of 0 or more"],
        [{ max_budget_change_percent: "-3" }, "max budget change percent must be a number of 0 or more"],
        [{ max_daily_budget_per_account: "lots" }, "Highest total daily budget per account must be a number of 0 or more, or empty."],
        [{ protected_names: "x".repeat(201) }, "a protected name pattern has at most 200 characters"]
      ] as const) {
        const answer = await save(admin, fields)
        expect(answer.status, words).toBe(400)
        expect(problemIn(answer.text), words).toContain(words)
      }
      expect(await stored()).toEqual(before)
    })

    it("an editor and a viewer read the guardrails but get no form; their posts are refused (403) and save nothing", async () => {
      const before = await stored()
      for (const who of [editor, viewer]) {
        const page = await who.get(settings())
        expect(page.status).toBe(200)
        expect(page.text).toContain("Only a workspace admin changes the guardrails.")
        expect(page.text).not.toContain(`action="${settings()}/guardrails"`)
        expect(page.text).toContain("<code>Brand*</code>")
        expect((await save(who, { max_changes_per_day: "100" })).status).toBe(403)
      }
      expect(await stored()).toEqual(before)
    })

    it("a post without the CSRF token or with another session's is refused (403) and saves nothing", async () => {
      const before = await stored()
      expect((await save(admin, { max_changes_per_day: "99" }, null)).status).toBe(403)
      expect((await save(admin, { max_changes_per_day: "99" }, await editor.csrf())).status).toBe(403)
      expect(await stored()).toEqual(before)
    })

    it("a member of another workspace gets 404", async () => {
      expect((await editor.get(pagePaths.settings(server.workspaces.free.id))).status).toBe(404)
      expect((await editor.post(`${pagePaths.settings(server.workspaces.free.id)}/guardrails`, { max_changes_per_day: "1" })).status).toBe(404)
    })

    it("the credits ledger: the balance and the entries newest first, a page at a time", async () => {
      const ws = server.workspaces.paid.id
      const moves = creditHistoryPageSize + 3
      await server.run(Effect.gen(function* () {
        const ledger = yield* CreditsLedger
        for (let i = 1; i <= moves; i++) yield* ledger.charge({ workspaceId: ws, amount: 1, reason: `charge ${i}`, reference: null, now: Date.now() + i })
      }))
      const balance = await server.run(Effect.flatMap(CreditsLedger, (l) => l.balance(ws)))
      const first = (await viewer.get(settings())).text
      expect(first).toContain(`<strong>${balance.toLocaleString("en-US", { maximumFractionDigits: 2 })}</strong>`)
      const newest = reasonsIn(first)
      expect(newest).toHaveLength(creditHistoryPageSize)
      expect(newest[0]).toBe(`charge ${moves}`)
      expect(newest[creditHistoryPageSize - 1]).toBe(`charge ${moves - creditHistoryPageSize + 1}`)
      expect(first).toContain(`href="${pagePaths.settingsLedger(ws, 2)}#credits" rel="next"`)
      expect(first).not.toContain(`rel="prev"`)
      const second = (await viewer.get(pagePaths.settingsLedger(ws, 2))).text
      expect(reasonsIn(second)).toEqual(["charge 3", "charge 2", "charge 1"])
      expect(second).toContain(`rel="prev"`)
      expect(second).not.toContain(`rel="next"`)
      // A page number that is not one reads as the first page.
      expect(reasonsIn((await viewer.get(`${settings()}?page=abc`)).text)[0]).toBe(`charge ${moves}`)
    })
  })
}
