// First start on an empty database (README, first start): a demo workspace "Demo" on the paid plan with credits, its
// admin (ADGATE_ADMIN_EMAIL / ADGATE_ADMIN_PASSWORD, else admin@example.com), an editor, and the four sandbox
// platforms connected with their seeded data (docs/platforms.md). A generated password
// is printed once, to stderr, and never logged: stdout is the log stream (logfmt lines that log collectors keep), so a
// password there would be a password in the logs. Processes starting together on one PostgreSQL seed it once: the
// check and the seeding run in one transaction under an advisory lock.
import { Effect, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import type { User, Workspace } from "@adgate/core"
import { addUser, addWorkspace, Directory, generatePassword } from "@adgate/core"
import { connectSandboxPlatforms } from "adgate/server"

export const demoCredits = 1000

/** The first admin's address when ADGATE_ADMIN_EMAIL is not set; also the instance's admin (the development mailbox). */
export const defaultAdminEmail = "admin@example.com"

export interface SeedOptions {
  readonly adminEmail: Option.Option<string>
  readonly adminPassword: Option.Option<Redacted.Redacted<string>>
  /** Where the one-time passwords go (stderr by default: stdout is the log stream). */
  readonly print?: (line: string) => void
}

/** The key of the transaction-scoped advisory lock that serialises first-start seeding across processes. */
const seedLock = 0x6164676174 // "adgat"

export const seedOnFirstStart = (options: SeedOptions) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const seeded = yield* sql.withTransaction(Effect.gen(function* () {
      // Held until commit: a second process waits here, then finds the database no longer empty.
      yield* sql`SELECT pg_advisory_xact_lock(${seedLock})`
      if (!(yield* (yield* Directory).isEmpty())) return Option.none<Seeded>()
      return Option.some(yield* seed(options))
    }))
    if (Option.isNone(seeded)) return Option.none<Workspace>()
    const { workspace, admin, editor, adminPassword, editorPassword, given } = seeded.value
    yield* Effect.logInfo(`first start: created workspace "Demo" (paid, ${demoCredits} credits) with ${admin.email} (admin) and ${editor.email} (editor)`)
    // Printed after the commit, so a password is never shown for people a rolled-back seeding did not create.
    const print = options.print ?? ((line: string) => process.stderr.write(line + "\n"))
    yield* Effect.sync(() => {
      print("adgate first start: demo workspace \"Demo\" created.")
      if (!given) print(`  admin  ${admin.email}  password: ${adminPassword}`)
      else print(`  admin  ${admin.email}  password: (ADGATE_ADMIN_PASSWORD)`)
      print(`  editor ${editor.email}  password: ${editorPassword}`)
      print("  These passwords are shown only this once.")
    })
    return Option.some(workspace)
  })

interface Seeded {
  readonly workspace: Workspace
  readonly admin: User
  readonly editor: User
  readonly adminPassword: string
  readonly editorPassword: string
  /** The admin's password came from ADGATE_ADMIN_PASSWORD (not printed). */
  readonly given: boolean
}

const seed = (options: SeedOptions) =>
  Effect.gen(function* () {
    const directory = yield* Directory
    const workspace = yield* addWorkspace({ name: "Demo", plan: "paid", credits: demoCredits })
    const adminEmail = Option.getOrElse(options.adminEmail, () => defaultAdminEmail)
    const given = Option.map(options.adminPassword, Redacted.value)
    const adminPassword = Option.isSome(given) ? given.value : yield* generatePassword
    const admin = yield* addUser({ email: adminEmail, name: "Admin", password: adminPassword })
    yield* directory.setRole(workspace.id, admin.id, Option.some("admin"))
    const editorPassword = yield* generatePassword
    const editor = yield* addUser({ email: "editor@example.com", name: "Editor", password: editorPassword })
    yield* directory.setRole(workspace.id, editor.id, Option.some("editor"))
    yield* connectSandboxPlatforms(workspace.id, admin.id)
    return { workspace, admin, editor, adminPassword, editorPassword, given: Option.isSome(given) } satisfies Seeded
  })
