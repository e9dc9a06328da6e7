// `npm run adgate -- <command>`: administration against the server's database (DATABASE_URL, else the embedded
// database in ADGATE_DATA_DIR, which only one process may hold). The commands call the core's services, the same
// ones the management pages call; this file only reads the command line and says the outcome in sentences. Secrets
// it makes are printed once, here only.
import { Cause, ConfigProvider, Effect, Exit, Layer, Logger, Option, Schema } from "effect"
import {
  addUser, addWorkspace, createApiKey, decideAndExecute, defaultScopes, Directory, findUser, findWorkspace, findWriteRequest,
  generatePassword, type GuardrailChanges, type Guardrails, listPendingWriteRequests, passwordMinLength, Plan, requesterEndedMessage,
  requesterEndingOf, Role, Scope, setCreditBalance, setGuardrails, setMemberRole, setWorkspacePlan, showGuardrails, WriteMode, type WriteRequest,
  WriteRequestId
} from "@adgate/core"
import { dataFolderInUse } from "@adgate/adapters-sql"
import { appPorts } from "./appPorts.ts"
import { loadAppConfig } from "./config.ts"
import { formatLogfmtOneMessage } from "./LogfmtLogger.ts"
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
  requests list <workspace>                                   (writes waiting for a person)
  requests approve <workspace> <request-id> <decider-email>   (runs the write at once)
  requests reject <workspace> <request-id> <decider-email>
  guardrails show <workspace>
  guardrails set <workspace> [--max-budget-change-percent <n|none>] [--max-changes-per-day <n|none>]
                 [--max-daily-budget-per-account <n|none>] [--protected-names "<glob>,<glob>,…"]

<workspace> is a workspace id (ws_…) or its name. The CLI uses the server's database: DATABASE_URL, or the
embedded database in ADGATE_DATA_DIR (default ./.adgate-data), which the running server holds exclusively.`

/** Where the CLI writes, and the environment it reads its configuration from (the process's own, or a test's). */
export interface CliIo {
  readonly out: (line: string) => void
  readonly err: (line: string) => void
  readonly env: Readonly<Record<string, string | undefined>>
}

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

const only = (flags: ReadonlyMap<string, string>, allowed: ReadonlyArray<string>) => {
  for (const name of flags.keys()) if (!allowed.includes(name)) return Effect.fail(new UsageInvalid({ message: `unknown option --${name}` }))
  return Effect.void
}

const table = (rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)))
  return rows.map((r) => r.map((cell, c) => cell.padEnd(widths[c]!)).join("  ").trimEnd()).join("\n")
}

/** One command, against the core's ports; `say` prints a line of the answer. */
export const runCommand = (argv: ReadonlyArray<string>, say: (line: string) => void) =>
  Effect.gen(function* () {
    const print = (line: string) => Effect.sync(() => say(line))
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
        yield* print(`added ${user.email} (${user.id})`)
        if (given === undefined) yield* print(`password: ${password}   (shown only this once)`)
        return
      }
      case "workspace add": {
        yield* only(flags, ["plan", "credits"])
        const plan = yield* literal(Plan, "plan", flags.get("plan") ?? "free")
        const credits = flags.has("credits") ? Number(flags.get("credits")) : 0
        const workspace = yield* addWorkspace({ name: rest.join(" "), plan, credits })
        yield* print(`added workspace ${workspace.name} (${workspace.id}, ${workspace.plan} plan, ${workspace.credits} credits)`)
        return
      }
      case "member set": {
        yield* only(flags, [])
        const [workspace, email, role] = rest
        if (workspace === undefined || email === undefined) return yield* new UsageInvalid({ message: "member set <workspace> <email> <role>" })
        const chosen = role === "none" ? "none" as const : yield* literal(Role, "role", role)
        const done = yield* setMemberRole(workspace, email, chosen)
        yield* print(chosen === "none"
          ? `${done.user.email} is no longer a member of ${done.workspace.name}`
          : `${done.user.email} is ${chosen} of ${done.workspace.name}`)
        return
      }
      case "plan set": {
        yield* only(flags, [])
        const [workspace, plan] = rest
        if (workspace === undefined) return yield* new UsageInvalid({ message: "plan set <workspace> <free|paid>" })
        const done = yield* setWorkspacePlan(workspace, yield* literal(Plan, "plan", plan))
        yield* print(`${done.name} is on the ${done.plan} plan`)
        return
      }
      case "credits set": {
        yield* only(flags, [])
        const [workspace, n] = rest
        if (workspace === undefined || n === undefined) return yield* new UsageInvalid({ message: "credits set <workspace> <n>" })
        const done = yield* setCreditBalance(workspace, Number(n), "set by an administrator (CLI)")
        yield* print(`${done.name} has ${done.credits} credits`)
        return
      }
      case "apikey create": {
        yield* only(flags, ["scopes", "tool-writes"])
        const [workspaceRef, creatorEmail, ...nameWords] = rest
        if (workspaceRef === undefined || creatorEmail === undefined || nameWords.length === 0)
          return yield* new UsageInvalid({ message: "apikey create <workspace> <creator-email> <name>" })
        const scopes = flags.has("scopes")
          ? yield* Effect.forEach(flags.get("scopes")!.split(",").map((s) => s.trim()).filter((s) => s !== ""),
            (s) => literal(Scope, "scope", s))
          : defaultScopes
        const toolWrites = yield* literal(WriteMode, "--tool-writes value (wait or apply)", flags.get("tool-writes") ?? "wait")
        const workspace = yield* findWorkspace(workspaceRef)
        const creator = yield* findUser(creatorEmail)
        const { key, secret } = yield* createApiKey({ workspaceId: workspace.id, actorId: creator.id, name: nameWords.join(" "), scopes, toolWrites })
        yield* print(`created API key ${key.name} (${key.id}) with ${key.scopes.join(" ")}; tool writes: ${key.toolWrites}`)
        yield* print(`key: ${secret}   (shown only this once)`)
        return
      }
      case "list workspaces": {
        const rows = yield* (yield* Directory).listWorkspaces()
        if (rows.length === 0) return yield* print("no workspaces")
        return yield* print(table([["ID", "NAME", "PLAN", "CREDITS", "MEMBERS"],
          ...rows.map(({ workspace: w, members }) => [w.id, w.name, w.plan, String(w.credits), String(members)])]))
      }
      case "list users": {
        const rows = yield* (yield* Directory).listUsers()
        if (rows.length === 0) return yield* print("no users")
        return yield* print(table([["ID", "EMAIL", "NAME", "WORKSPACES"], ...rows.map(({ user: u, workspaces }) =>
          [u.id, u.email, u.name, workspaces.map((w) => `${w.workspace.name} (${w.role})`).join(", ")])]))
      }
      case "requests list":
      case "requests approve":
      case "requests reject":
        return yield* requestsCommand(verb!, rest, flags, print)
      case "guardrails show":
      case "guardrails set":
        return yield* guardrailsCommand(verb!, rest, flags, print)
      default:
        return yield* new UsageInvalid({ message: `unknown command: ${command}` })
    }
  })

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z")
const clip = (text: string, max = 80) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

const describeRequest = (r: WriteRequest) => {
  switch (r.status) {
    case "executed": return `request ${r.id} approved and executed: the platform answered ${r.providerStatus}`
    case "failed": {
      const ending = requesterEndingOf(r)
      return `request ${r.id} approved but failed: ${ending !== null ? requesterEndedMessage(ending) : r.providerStatus === null ? "the platform was not reached" : `the platform answered ${r.providerStatus}`}`
    }
    case "approved": return `request ${r.id} approved; it runs as soon as the platform answers (housekeeping retries it)`
    case "rejected": return `request ${r.id} rejected`
    default: return `request ${r.id} is ${r.status}`
  }
}

/**
 * Write approvals from the command line (spec §What the service does 6): the queue, and a decision by a workspace
 * admin or editor named by e-mail. The approval is of the payload listed (its stored fingerprint).
 */
const requestsCommand = (verb: string, rest: ReadonlyArray<string>, flags: ReadonlyMap<string, string>, print: (line: string) => Effect.Effect<void>) =>
  Effect.gen(function* () {
    yield* only(flags, [])
    const [workspaceRef, requestId, deciderEmail] = rest
    if (workspaceRef === undefined) return yield* new UsageInvalid({ message: `requests ${verb} <workspace>` })
    const workspace = yield* findWorkspace(workspaceRef)
    if (verb === "list") {
      const pending = yield* listPendingWriteRequests(workspace.id)
      if (pending.length === 0) return yield* print(`no writes waiting in ${workspace.name}`)
      return yield* print(table([["ID", "TOOL", "REASON", "QUEUED", "EXPIRES", "ARGUMENTS"],
        ...pending.map((r) => [r.id, r.tool, r.reason, iso(r.createdAt), iso(r.expiresAt), clip(JSON.stringify(r.arguments))])]))
    }
    if (requestId === undefined || deciderEmail === undefined)
      return yield* new UsageInvalid({ message: `requests ${verb} <workspace> <request-id> <decider-email>` })
    const decider = yield* findUser(deciderEmail)
    const request = yield* findWriteRequest(workspace.id, WriteRequestId.make(requestId))
    const decided = yield* decideAndExecute(verb === "approve"
      ? { id: request.id, workspaceId: workspace.id, deciderId: decider.id, decision: "approve", argumentsHash: request.argumentsHash }
      : { id: request.id, workspaceId: workspace.id, deciderId: decider.id, decision: "reject" })
    return yield* print(describeRequest(decided))
  })

const capFlag = (flags: ReadonlyMap<string, string>, name: string) => {
  const value = flags.get(name)
  if (value === undefined) return Effect.succeed(undefined)
  if (value === "none") return Effect.succeed(null)
  const n = Number(value)
  return value.trim() === "" || !Number.isFinite(n)
    ? Effect.fail(new UsageInvalid({ message: `--${name} needs a number or none` }))
    : Effect.succeed(n)
}

const showCaps = (g: Guardrails) => [
  `max budget change percent:    ${g.maxBudgetChangePercent ?? "none"}`,
  `max changes per day:          ${g.maxChangesPerDay ?? "none"}`,
  `max daily budget per account: ${g.maxDailyBudgetPerAccount ?? "none"}`,
  `protected names:              ${g.protectedNames.length === 0 ? "none" : g.protectedNames.join(", ")}`
].join("\n")

/** A workspace's guardrails (issue 9: settable with the CLI now, the page comes later). */
const guardrailsCommand = (verb: string, rest: ReadonlyArray<string>, flags: ReadonlyMap<string, string>, print: (line: string) => Effect.Effect<void>) =>
  Effect.gen(function* () {
    const [workspaceRef] = rest
    if (workspaceRef === undefined) return yield* new UsageInvalid({ message: `guardrails ${verb} <workspace>` })
    if (verb === "show") {
      yield* only(flags, [])
      const workspace = yield* findWorkspace(workspaceRef)
      return yield* print(`guardrails of ${workspace.name}\n${showCaps(yield* showGuardrails(workspace.id))}`)
    }
    yield* only(flags, ["max-budget-change-percent", "max-changes-per-day", "max-daily-budget-per-account", "protected-names"])
    if (flags.size === 0) return yield* new UsageInvalid({ message: "guardrails set <workspace> needs at least one option" })
    const changes: { -readonly [K in keyof GuardrailChanges]: GuardrailChanges[K] } = {}
    const percent = yield* capFlag(flags, "max-budget-change-percent")
    if (percent !== undefined) changes.maxBudgetChangePercent = percent
    const perDay = yield* capFlag(flags, "max-changes-per-day")
    if (perDay !== undefined) changes.maxChangesPerDay = perDay
    const perAccount = yield* capFlag(flags, "max-daily-budget-per-account")
    if (perAccount !== undefined) changes.maxDailyBudgetPerAccount = perAccount
    const names = flags.get("protected-names")
    if (names !== undefined) changes.protectedNames = names === "none" ? [] : names.split(",").map((n) => n.trim()).filter((n) => n !== "")
    const workspace = yield* findWorkspace(workspaceRef)
    const saved = yield* setGuardrails(workspace.id, null, changes)
    return yield* print(`guardrails of ${workspace.name} set\n${showCaps(saved)}`)
  })

/** The whole run of one command: configuration from `env`, the database, the command. */
const program = (argv: ReadonlyArray<string>, io: CliIo) =>
  Effect.gen(function* () {
    const config = yield* loadAppConfig
    return yield* runCommand(argv, io.out).pipe(Effect.provide(appPorts(config)))
  }).pipe(
    Effect.provide(Layer.mergeAll(
      // Log lines go to stderr: stdout carries only the command's answer.
      Logger.layer([Logger.map(formatLogfmtOneMessage, io.err)]),
      ConfigProvider.layer(ConfigProvider.fromEnv({ env: definedOnly(io.env) }))
    )),
    Effect.scoped
  )

const definedOnly = (env: Readonly<Record<string, string | undefined>>) => {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v
  return out
}

type CliFailure = Exit.Exit<void, Effect.Error<ReturnType<typeof program>>> extends Exit.Exit<void, infer E> ? E : never

const apiKeyRefused = "The API key cannot be created: "

/** What each failure says to the person at the terminal, in a sentence: one row per error (a missing row does not compile). */
const sentences: { readonly [K in CliFailure["_tag"]]: (error: Extract<CliFailure, { readonly _tag: K }>) => string } = {
  UsageInvalid: (e) => `${e.message}\n\n${usage}`,
  ConfigurationInvalid: (e) => `Configuration: ${e.message}`,
  ConfigError: (e) => `Configuration: ${e.message}`,
  CredentialKeyInvalid: (e) => `Configuration: ${e.message}`,
  MigrationError: (e) => `Failed: the database could not be prepared (${e.message})`,
  UserInvalid: (e) => e.reason === "email_malformed"
    ? `${e.email} is not an e-mail address`
    : `a password needs at least ${passwordMinLength} characters`,
  EmailTaken: (e) => `a person with ${e.email} exists already`,
  UserNotFound: (e) => `no person with ${e.email}`,
  WorkspaceInvalid: () => "a workspace needs a name",
  WorkspaceNotFound: (e) => `no workspace ${e.ref}`,
  WorkspaceNameAmbiguous: (e) => `${e.count} workspaces are named ${e.name}: use the id`,
  InvalidCreditAmount: () => "credits must be a number of 0 or more",
  CreditsWorkspaceNotFound: (e) => `no workspace ${e.workspaceId}`,
  ApiKeyInvalid: (e) => `${apiKeyRefused}${e.message}`,
  ApiKeyNotAllowed: (e) => apiKeyRefused + {
    not_a_member: "the creator is not a member of the workspace",
    role_cannot_connect: "the creator is a viewer; only a workspace admin or editor can create API keys",
    apply_needs_admin: "--tool-writes apply needs a workspace admin as the creator",
    not_your_key: "an editor revokes only the keys they created"
  }[e.reason],
  ApiKeyScopeNotGrantable: (e) => apiKeyRefused + {
    role_cannot_connect: `${e.scope} cannot be granted by a viewer`,
    needs_admin: `${e.scope} needs a workspace admin as the creator`,
    needs_paid_plan: `${e.scope} needs the workspace on the paid plan`
  }[e.reason],
  WriteRequestNotFound: (e) => `no write request ${e.requestId} in this workspace`,
  WriteRequestNotPending: (e) => `request ${e.requestId} is already ${e.status}: a decision comes once`,
  WriteRequestExpired: (e) => `request ${e.requestId} expired unanswered and can no longer be approved`,
  WriteRequestPayloadMismatch: (e) => `request ${e.requestId} changed since it was listed: list it again`,
  WriteRequestDecisionNotAllowed: () => "only a workspace admin or editor decides on a write",
  WriteRequestExecutionHeld: (e) => `request ${e.requestId} is being run by another process`,
  RequesterEnded: (e) => `request ${e.requestId} can no longer be approved: ${requesterEndedMessage(e)}; it is withdrawn`,
  WriteRequestNotDue: (e) => `request ${e.requestId} is not due to expire`,
  WriteRequestNotApproved: (e) => `request ${e.requestId} is ${e.status}, not approved`,
  Conflict: () => "the request changed while it was being decided: run the command again",
  GuardrailsInvalid: (e) => `The guardrails cannot be set: ${e.message}`,
  DirectoryUnavailable: (e) => `Failed: the database did not answer (${e.message})`,
  StoreUnavailable: (e) => `Failed: the database did not answer (${e.operation}: ${e.message})`,
  SqlError: (e) => {
    const held = dataFolderInUse(e)
    if (held === null) return `Failed: the database (${e.message})`
    return `The data folder ${held.dir} is in use by another adgate process${held.pid === null ? "" : ` (pid ${held.pid})`}, ` +
      "probably the running server: the embedded database allows one process at a time. Stop the server and run " +
      "the command again, or run both against PostgreSQL (DATABASE_URL)."
  }
}

/** What a failure says to the person at the terminal; never a stack trace, never a secret. */
export const describeCliFailure = (cause: Cause.Cause<CliFailure>): string => {
  const error = Cause.findErrorOption(cause)
  if (Option.isNone(error)) return "Failed: unexpected error"
  const say = sentences[error.value._tag] as (e: CliFailure) => string
  return withoutPasswords(say(error.value))
}

/**
 * Runs the CLI with `argv` (the words after `adgate`) and answers the exit code: 0 done, 1 refused or failed. With
 * no words it prints the usage and answers 1; `help` prints it and answers 0.
 */
export const runCli = async (argv: ReadonlyArray<string>, io: CliIo): Promise<number> => {
  if (argv.length === 0) {
    io.err(usage)
    return 1
  }
  if (argv[0] === "help" || argv[0] === "--help" || argv[0] === "-h") {
    io.out(usage)
    return 0
  }
  const exit = await Effect.runPromiseExit(program(argv, io))
  if (Exit.isSuccess(exit)) return 0
  io.err(describeCliFailure(exit.cause))
  return 1
}

if (import.meta.main) {
  process.exitCode = await runCli(process.argv.slice(2), {
    out: (line) => process.stdout.write(line + "\n"),
    err: (line) => process.stderr.write(line + "\n"),
    env: process.env
  })
}
