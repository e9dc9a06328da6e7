// The account page over HTTP (docs/service.md, Pages: "Account"; docs/decisions.md, People: "Changing a password"):
// Change password with the current one, the new one twice; refusals change nothing; success ends the person's other
// sessions and keeps this one; CSRF; only the hash of the new password is stored. On memory, PGlite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { passwordMinLength, PasswordHasher, PeopleStore } from "@adgate/core"
import { Effect, Option } from "effect"
import { pagePaths } from "../../src/pages/pagePaths.ts"
import { browser, noticeIn, type PageServer, pageServers, type StartedServer } from "./pageServers.ts"

const problemIn = (page: string): string => /<p class="alert" role="alert">([^<]*)<\/p>/.exec(page)?.[1] ?? ""

for (const [name, runs, start] of pageServers) {
  describe.skipIf(!runs)(`Account page (${name})`, () => {
    let started: StartedServer
    let server: PageServer

    beforeAll(async () => {
      started = await start()
      server = started.server
    }, 120_000)
    afterAll(() => started?.close())

    const change = (who: Awaited<ReturnType<typeof browser>>, fields: Partial<Record<"current_password" | "new_password" | "new_password_again", string>>, csrf?: string | null) =>
      who.post(pagePaths.accountPassword, {
        current_password: who.user.password, new_password: "a-new-password-22", new_password_again: "a-new-password-22", ...fields
      }, csrf === undefined ? {} : { csrf })
    const storedHash = (userId: typeof server.users.editor.id) =>
      server.run(Effect.map(Effect.flatMap(PeopleStore, (p) => p.passwordHash(userId)), Option.getOrThrow))

    it("the page shows the person and the form; nobody signed in is sent to sign-in", async () => {
      const editor = await browser(server, "editor")
      const page = await editor.get(pagePaths.account)
      expect(page.status).toBe(200)
      expect(page.text).toContain(server.users.editor.email)
      expect(page.text).toContain(`action="${pagePaths.accountPassword}"`)
      expect((await server.get(pagePaths.account)).status).toBe(303)
      const anonymous = await server.postForm(pagePaths.accountPassword, { current_password: "x", new_password: "y", new_password_again: "y" })
      expect(anonymous.status).toBe(303)
      expect(anonymous.headers.get("location")).toContain("/signin")
    })

    it("a wrong current password, a short new one or two different ones are refused with the reason, and change nothing", async () => {
      const viewer = await browser(server, "viewer")
      const before = await storedHash(server.users.viewer.id)
      for (const [fields, status, words] of [
        [{ current_password: "not-my-password" }, 400, "The current password is not right."],
        [{ new_password: "short", new_password_again: "short" }, 400, `The new password needs at least ${passwordMinLength} characters.`],
        [{ new_password_again: "a-new-password-23" }, 400, "The two new passwords are not the same."]
      ] as const) {
        const answer = await change(viewer, fields)
        expect(answer.status, words).toBe(status)
        expect(problemIn(answer.text), words).toBe(words)
      }
      expect(await storedHash(server.users.viewer.id)).toBe(before)
      // The old password still signs in.
      await server.signIn(server.users.viewer.email, server.users.viewer.password)
    })

    it("a post without the CSRF token or with another session's is refused (403) and changes nothing", async () => {
      const viewer = await browser(server, "viewer")
      const admin = await browser(server, "admin")
      const before = await storedHash(server.users.viewer.id)
      expect((await change(viewer, {}, null)).status).toBe(403)
      expect((await change(viewer, {}, await admin.csrf())).status).toBe(403)
      expect(await storedHash(server.users.viewer.id)).toBe(before)
    })

    it("the right current password sets the new one (stored as a hash only): this session stays, the person's other sessions end, the old password no longer signs in", async () => {
      const here = await browser(server, "editor")
      const elsewhere = await browser(server, "editor")
      const someoneElse = await browser(server, "admin")
      const answer = await change(here, {})
      expect(answer.status).toBe(303)
      expect(answer.headers.get("location")?.startsWith(pagePaths.account)).toBe(true)
      expect(await noticeIn(here, answer)).toMatch(/^Your password is changed\. \d+ other sessions? (was|were) signed out\.$/)
      expect((await here.get(pagePaths.account)).status).toBe(200)
      expect((await elsewhere.get(pagePaths.account)).status).toBe(303)
      expect((await someoneElse.get(pagePaths.account)).status).toBe(200)
      const hash = await storedHash(server.users.editor.id)
      expect(hash).not.toContain("a-new-password-22")
      expect(await server.run(Effect.flatMap(PasswordHasher, (h) => h.verify("a-new-password-22", hash)))).toBe(true)
      await expect(server.signIn(server.users.editor.email, server.users.editor.password)).rejects.toThrow(/401/)
      await server.signIn(server.users.editor.email, "a-new-password-22")
    })
  })
}
