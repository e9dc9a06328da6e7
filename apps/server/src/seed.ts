// First start on an empty database (issue 4 "People"): a demo workspace "Demo" on the paid plan with credits, its
// admin (ADGATE_ADMIN_EMAIL / ADGATE_ADMIN_PASSWORD, else admin@example.com) and an editor. A generated password
// is printed once, to stdout, and never logged.
import { Effect, Option, Redacted } from "effect"
import type { Workspace } from "@adgate/core"
import { Directory } from "@adgate/core"
import { addUser, addWorkspace, databaseIsEmpty, generatePassword } from "./Administration.ts"

export const demoCredits = 1000

export interface SeedOptions {
  readonly adminEmail: Option.Option<string>
  readonly adminPassword: Option.Option<Redacted.Redacted<string>>
  /** Where the one-time passwords go (stdout by default). */
  readonly print?: (line: string) => void
}

export const seedOnFirstStart = (options: SeedOptions) =>
  Effect.gen(function* () {
    if (!(yield* databaseIsEmpty)) return Option.none<Workspace>()
    const print = options.print ?? ((line: string) => process.stdout.write(line + "\n"))
    const directory = yield* Directory
    const workspace = yield* addWorkspace({ name: "Demo", plan: "paid", credits: demoCredits })
    const adminEmail = Option.getOrElse(options.adminEmail, () => "admin@example.com")
    const given = Option.map(options.adminPassword, Redacted.value)
    const adminPassword = Option.isSome(given) ? given.value : yield* generatePassword
    const admin = yield* addUser({ email: adminEmail, name: "Admin", password: adminPassword })
    yield* directory.setRole(workspace.id, admin.id, Option.some("admin"))
    const editorPassword = yield* generatePassword
    const editor = yield* addUser({ email: "editor@example.com", name: "Editor", password: editorPassword })
    yield* directory.setRole(workspace.id, editor.id, Option.some("editor"))
    yield* Effect.logInfo(`first start: created workspace "Demo" (paid, ${demoCredits} credits) with ${admin.email} (admin) and ${editor.email} (editor)`)
    yield* Effect.sync(() => {
      print("adgate first start: demo workspace \"Demo\" created.")
      if (Option.isNone(given)) print(`  admin  ${admin.email}  password: ${adminPassword}`)
      else print(`  admin  ${admin.email}  password: (ADGATE_ADMIN_PASSWORD)`)
      print(`  editor ${editor.email}  password: ${editorPassword}`)
      print("  These passwords are shown only this once.")
    })
    return Option.some(workspace)
  })
