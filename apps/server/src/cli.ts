// `npm run adgate -- <command>`: administration against the server's database (DATABASE_URL, else the embedded
// database in ADGATE_DATA_DIR, which only one process may hold). Secrets it makes are printed once, here only.
import { Cause, Effect, Exit, Schema } from "effect"
import { Plan, Role, Scope, WriteMode, defaultScopes } from "@adgate/core"
import {
  addUser, addWorkspace, createKey, generatePassword, listUsers, listWorkspaces, setCredits, setMember, setPlan
} from "./Administration.ts"
import { dataFolderInUse } from "@adgate/adapters-sql"
import { appPorts } from "./appPorts.ts"
import { loadAppConfig } from "./config.ts"
import { LogfmtLogger } from "./LogfmtLogger.ts"
import { UsageInvalid } from "./errors.ts"
import { withoutPasswords } from "./withoutPasswords.ts"

export const usage = `Usage: npm run adgate -- <command>

  user add <email> [--name <name>] [--password <password>]   (a generated password is printed once)
  workspace add <name> [--plan free|paid] [--credits <n>]
  member set <workspace> <email> <admin|editor|viewer|none>
  plan set <workspace> <free|paid>
  credits set <workspace> <n>
  apikey create <workspace> <creator-email> <name> [--scopes a,b,...] [--tool-writes wait|apply]
                                                              (the key is printed once)
  list workspaces
  list users

<workspace> is a workspace id (ws_…) or its name. The CLI uses the server's database: DATABASE_URL, or the
embedded database in ADGATE_DATA_DIR (default ./.adgate-data), which the running server holds exclusively.`

interface Parsed {
  readonly words: ReadonlyArray<string>
  readonly flags: ReadonlyMap<string, string>
}

const parse = (argv: ReadonlyArray<string>): Parsed | UsageInvalid => {
  const words: Array<string> = []
  const flags = new Map<string, string>()
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=")
      const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2)
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i]
      if (value === undefined) return new UsageInvalid({ message: `--${name} needs a value` })
      flags.set(name, value)
    } else words.push(arg)
  }
  return { words, flags }
}

const literal = <A extends string>(schema: Schema.Codec<A>, what: string, value: string | undefined) =>
  Effect.mapError(Schema.decodeUnknownEffect(schema)(value), () => new UsageInvalid({ message: `not a valid ${what}: ${value ?? "(missing)"}` }))

const say = (line: string) => Effect.sync(() => process.stdout.write(line + "\n"))

const only = (flags: ReadonlyMap<string, string>, allowed: ReadonlyArray<string>) => {
  for (const name of flags.keys()) if (!allowed.includes(name)) return Effect.fail(new UsageInvalid({ message: `unknown option --${name}` }))
  return Effect.void
}

const table = (rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)))
  return rows.map((r) => r.map((cell, c) => cell.padEnd(widths[c]!)).join("  ").trimEnd()).join("\n")
}

export const runCommand = (argv: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const parsed = parse(argv)
    if (parsed instanceof UsageInvalid) return yield* parsed
    const { words, flags } = parsed
    const [noun, verb, ...rest] = words
    const command = `${noun ?? ""} ${verb ?? ""}`.trim()
    switch (command) {
      case "user add": {
        yield* only(flags, ["name", "password"])
        const [email] = rest
        if (email === undefined) return yield* new UsageInvalid({ message: "user add <email>" })
        const given = flags.get("password")
        const password = given ?? (yield* generatePassword)
        const user = yield* addUser({ email, password, ...(flags.has("name") ? { name: flags.get("name")! } : {}) })
        yield* say(`added ${user.email} (${user.id})`)
        if (given === undefined) yield* say(`password: ${password}   (shown only this once)`)
        return
      }
      case "workspace add": {
        yield* only(flags, ["plan", "credits"])
        const name = rest.join(" ")
        const plan = yield* literal(Plan, "plan", flags.get("plan") ?? "free")
        const credits = flags.has("credits") ? Number(flags.get("credits")) : 0
        if (!Number.isFinite(credits) || credits < 0) return yield* new UsageInvalid({ message: "--credits must be a number of 0 or more" })
        const workspace = yield* addWorkspace({ name, plan, credits })
        yield* say(`added workspace ${workspace.name} (${workspace.id}, ${workspace.plan} plan, ${workspace.credits} credits)`)
        return
      }
      case "member set": {
        yield* only(flags, [])
        const [workspace, email, role] = rest
        if (workspace === undefined || email === undefined) return yield* new UsageInvalid({ message: "member set <workspace> <email> <role>" })
        const chosen = role === "none" ? "none" as const : yield* literal(Role, "role", role)
        const done = yield* setMember(workspace, email, chosen)
        yield* say(chosen === "none"
          ? `${done.user.email} is no longer a member of ${done.workspace.name}`
          : `${done.user.email} is ${chosen} of ${done.workspace.name}`)
        return
      }
      case "plan set": {
        yield* only(flags, [])
        const [workspace, plan] = rest
        if (workspace === undefined) return yield* new UsageInvalid({ message: "plan set <workspace> <free|paid>" })
        const done = yield* setPlan(workspace, yield* literal(Plan, "plan", plan))
        yield* say(`${done.name} is on the ${plan} plan`)
        return
      }
      case "credits set": {
        yield* only(flags, [])
        const [workspace, n] = rest
        if (workspace === undefined || n === undefined) return yield* new UsageInvalid({ message: "credits set <workspace> <n>" })
        const done = yield* setCredits(workspace, Number(n))
        yield* say(`${done.name} has ${Number(n)} credits`)
        return
      }
      case "apikey create": {
        yield* only(flags, ["scopes", "tool-writes"])
        const [workspace, creatorEmail, ...nameWords] = rest
        if (workspace === undefined || creatorEmail === undefined || nameWords.length === 0)
          return yield* new UsageInvalid({ message: "apikey create <workspace> <creator-email> <name>" })
        const scopes = flags.has("scopes")
          ? yield* Effect.forEach(flags.get("scopes")!.split(",").map((s) => s.trim()).filter((s) => s !== ""),
            (s) => literal(Scope, "scope", s))
          : defaultScopes
        const toolWrites = yield* literal(WriteMode, "--tool-writes value (wait or apply)", flags.get("tool-writes") ?? "wait")
        const { key, secret } = yield* createKey({ workspace, creatorEmail, name: nameWords.join(" "), scopes, toolWrites })
        yield* say(`created API key ${key.name} (${key.id}) with ${key.scopes.join(" ")}; tool writes: ${key.toolWrites}`)
        yield* say(`key: ${secret}   (shown only this once)`)
        return
      }
      case "list workspaces": {
        const rows = yield* listWorkspaces
        if (rows.length === 0) return yield* say("no workspaces")
        return yield* say(table([["ID", "NAME", "PLAN", "CREDITS", "MEMBERS"],
          ...rows.map((w) => [w.id, w.name, w.plan, String(w.credits), String(w.members)])]))
      }
      case "list users": {
        const rows = yield* listUsers
        if (rows.length === 0) return yield* say("no users")
        return yield* say(table([["ID", "EMAIL", "NAME", "WORKSPACES"], ...rows.map((u) => [u.id, u.email, u.name, u.workspaces])]))
      }
      default:
        return yield* new UsageInvalid({ message: command === "" ? "no command given" : `unknown command: ${command}` })
    }
  })

/** What a failure says to the person at the terminal; never a stack trace, never a secret. */
export const describeCliFailure = (cause: Cause.Cause<unknown>): string => withoutPasswords(describeFailure(cause))

const describeFailure = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause) as { readonly _tag?: string; readonly message?: string; readonly dataDir?: string; readonly pid?: number; readonly reason?: unknown }
  switch (error?._tag) {
    case "UsageInvalid":
      return `${error.message}\n\n${usage}`
    case "CommandRefused":
      return String(error.message)
    case "SqlError": {
      const held = dataFolderInUse(error)
      if (held === null) return `Failed: the database (${error.message ?? "unavailable"})`
      return `The data folder ${held.dir} is in use by another adgate process${held.pid === null ? "" : ` (pid ${held.pid})`}, ` +
        "probably the running server: the embedded database allows one process at a time. Stop the server and run " +
        "the command again, or run both against PostgreSQL (DATABASE_URL)."
    }
    case "ConfigurationInvalid":
      return `Configuration: ${error.message}`
    case "ApiKeyNotAllowed":
    case "ApiKeyScopeNotGrantable":
    case "ApiKeyInvalid":
      return `The API key cannot be created: ${JSON.stringify(Object.fromEntries(Object.entries(error).filter(([k]) => k !== "_tag")))}`
    default:
      return `Failed: ${error?._tag ?? "unexpected error"}${typeof error?.message === "string" && error._tag !== undefined ? ` (${error.message})` : ""}`
  }
}

const main = async () => {
  const argv = process.argv.slice(2)
  if (argv.length === 0 || argv[0] === "help" || argv[0] === "--help" || argv[0] === "-h") {
    process.stdout.write(usage + "\n")
    return
  }
  const program = Effect.gen(function* () {
    const config = yield* loadAppConfig
    return yield* runCommand(argv).pipe(Effect.provide(appPorts(config)))
  }).pipe(Effect.provide(LogfmtLogger), Effect.scoped)
  const exit = await Effect.runPromiseExit(program)
  if (Exit.isFailure(exit)) {
    process.stderr.write(describeCliFailure(exit.cause) + "\n")
    process.exitCode = 1
  }
}

if (import.meta.main) await main()

