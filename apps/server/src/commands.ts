// The operator's commands (`npm run adgate -- <command>`), in one place for both ways they run: in the CLI's own
// process on the database (no server running), and in the running server, sent over its admin socket
// (adminSocket.ts). Each command reads its words and calls the core's services, the same ones the management pages
// call, and says the outcome in sentences; this file holds no rule and no SQL. Secrets it makes are printed once, in
// the answer only.
import { Cause, Effect, Exit, Layer, Option, Schema } from "effect"
import {
  appIdentity,
  appLabelText,
  addUser, addWorkspace, ApiKeyId, ApiKeyStore, type ClientId, ClientStore, ConnectionId, ConnectionStore, createApiKey, decideAndExecute, defaultScopes,
  Directory, disconnectConnection, findUser, findWorkspace, findWriteRequest, generatePassword, type GuardrailChanges, type Guardrails,
  listPendingWriteRequests, passwordMinLength, Plan, requesterEndedMessage, requesterEndingOf, revokeApiKey, Role, Scope, setCreditBalance,
  setGuardrails, setMemberRole, setPassword, setWorkspacePlan, showGuardrails, type UserId, WriteMode, type WriteRequest, WriteRequestId
} from "@adgate/core"
import { withoutPasswords } from "adgate"
import { dataFolderInUse } from "adgate/server"
import type { appPorts } from "./appPorts.ts"
import type { loadAppConfig } from "./config.ts"
import { AdminSocketRefused, UsageInvalid } from "./errors.ts"

export const usage = `Usage: npm run adgate -- <command>

  user add <email> [--name <name>] [--password <password>]   (a generated password is printed once)
  workspace add <name> [--plan free|paid] [--credits <n>]
  member set <workspace> <email> <admin|editor|viewer|none>
  plan set <workspace> <free|paid>
  credits set <workspace> <n>
  user password <email>                                       (a generated password is printed once)
  apikey create <workspace> <creator-email> <name> [--scopes a,b,...] [--tool-writes wait|apply]
                                                              (the key is printed once)
  apikey list <workspace> [--all]                             (--all: revoked keys too)
  apikey revoke <workspace> <key-id>
  connections list <workspace> [--all]                        (--all: ended connections too)
  connections disconnect <workspace> <connection-id>
  list workspaces
  list users
  requests list <workspace>                                   (writes waiting for a person)
  requests approve <workspace> <request-id> <decider-email>   (runs the write at once)
  requests reject <workspace> <request-id> <decider-email>
  guardrails show <workspace>
  guardrails set <workspace> [--max-budget-change-percent <n|none>] [--max-budget-change-percent-per-day <n|none>]
                 [--max-changes-per-day <n|none>] [--max-daily-budget-per-account <n|none>]
                 [--protected-names "<glob>,<glob>,…"]

<workspace> is a workspace id (ws_…) or its name. On the embedded database (ADGATE_DATA_DIR, default
./.adgate-data) a running server answers the command through its admin socket in that folder; with no server
running, or with DATABASE_URL, the CLI opens the database itself.`

interface Parsed {
  readonly words: ReadonlyArray<string>
  readonly flags: ReadonlyMap<string, string>
}

/** Options that take no value: present or not. */
const switches: ReadonlySet<string> = new Set(["all"])

const parse = (argv: ReadonlyArray<string>): Parsed | UsageInvalid => {
  const words: Array<string> = []
  const flags = new Map<string, string>()
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=")
      const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2)
      const value = eq > 0 ? arg.slice(eq + 1) : switches.has(name) ? "" : argv[++i]
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
      case "user password": {
        yield* only(flags, [])
        const [email] = rest
        if (email === undefined) return yield* new UsageInvalid({ message: "user password <email>" })
        // Generated only: a password typed on a command line stays in the shell's history and the process list.
        const password = yield* generatePassword
        const user = yield* findUser(email)
        yield* setPassword({ userId: user.id, password })
        yield* print(`new password set for ${user.email} (${user.id}); the old one no longer signs in`)
        yield* print(`password: ${password}   (shown only this once)`)
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
      case "apikey list":
      case "apikey revoke":
        return yield* apiKeysCommand(verb!, rest, flags, print)
      case "connections list":
      case "connections disconnect":
        return yield* connectionsCommand(verb!, rest, flags, print)
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

/** Each person's e-mail address by id, for the lists that name who created or approved something. */
const emailsOf = (ids: ReadonlyArray<UserId>) =>
  Effect.gen(function* () {
    const directory = yield* Directory
    const emails = new Map<UserId, string>()
    for (const id of new Set(ids)) emails.set(id, Option.match(yield* directory.user(id), { onNone: () => id, onSome: (u) => u.email }))
    return emails
  })

const when = (ms: number | null) => (ms === null ? "never" : iso(ms))

/** A workspace's API keys (spec §Authentication 11): the live ones, or with --all the revoked ones too; revoking one. */
const apiKeysCommand = (verb: string, rest: ReadonlyArray<string>, flags: ReadonlyMap<string, string>, print: (line: string) => Effect.Effect<void>) =>
  Effect.gen(function* () {
    const [workspaceRef, keyId] = rest
    if (workspaceRef === undefined) return yield* new UsageInvalid({ message: verb === "list" ? "apikey list <workspace>" : "apikey revoke <workspace> <key-id>" })
    if (verb === "list") {
      yield* only(flags, ["all"])
      const all = yield* allFlag(flags)
      const workspace = yield* findWorkspace(workspaceRef)
      const keys = (yield* (yield* ApiKeyStore).listByWorkspace(workspace.id)).filter((k) => all || k.revokedAt === null)
      if (keys.length === 0) return yield* print(`no ${all ? "" : "live "}API keys in ${workspace.name}`)
      const creators = yield* emailsOf(keys.map((k) => k.createdBy))
      return yield* print(table([["ID", "NAME", "CREATED BY", "CREATED", "LAST USED", "SCOPES", "TOOL WRITES", ...(all ? ["REVOKED"] : [])],
        ...keys.map((k) => [k.id, k.name, creators.get(k.createdBy)!, iso(k.createdAt), when(k.lastUsedAt), k.scopes.join(" "), k.toolWrites,
          ...(all ? [k.revokedAt === null ? "-" : iso(k.revokedAt)] : [])])]))
    }
    yield* only(flags, [])
    if (keyId === undefined) return yield* new UsageInvalid({ message: "apikey revoke <workspace> <key-id>" })
    const workspace = yield* findWorkspace(workspaceRef)
    // The operator revokes (actor null): no person of the workspace is named, as for `member set` and `plan set`.
    const key = yield* revokeApiKey({ keyId: ApiKeyId.make(keyId), workspaceId: workspace.id, actorId: null })
    return yield* print(`API key ${key.name} (${key.id}) of ${workspace.name} is revoked: it is refused from now on`)
  })

/** A workspace's connected apps (spec §What the service does 5): the active ones, or with --all the ended too; disconnecting one. */
const connectionsCommand = (verb: string, rest: ReadonlyArray<string>, flags: ReadonlyMap<string, string>, print: (line: string) => Effect.Effect<void>) =>
  Effect.gen(function* () {
    const [workspaceRef, connectionId] = rest
    if (workspaceRef === undefined)
      return yield* new UsageInvalid({ message: verb === "list" ? "connections list <workspace>" : "connections disconnect <workspace> <connection-id>" })
    const clients = yield* ClientStore
    const appName = (clientId: ClientId) =>
      Effect.map(clients.find(clientId), Option.match({ onNone: (): string => clientId, onSome: (c) => appLabelText(appIdentity(c), clientId) }))
    if (verb === "list") {
      yield* only(flags, ["all"])
      const all = yield* allFlag(flags)
      const workspace = yield* findWorkspace(workspaceRef)
      const connections = (yield* (yield* ConnectionStore).listByWorkspace(workspace.id)).filter((c) => all || c.status === "active")
      if (connections.length === 0) return yield* print(`no ${all ? "" : "active "}connections in ${workspace.name}`)
      const approvers = yield* emailsOf(connections.map((c) => c.approverId))
      const apps = yield* Effect.forEach(connections, (c) => appName(c.clientId))
      return yield* print(table([["ID", "APP", "APPROVED BY", "APPROVED", "SCOPES", "SURFACE", "TOOL WRITES", "LAST USED", ...(all ? ["ENDED"] : [])],
        ...connections.map((c, i) => [c.id, clip(apps[i]!, 40), approvers.get(c.approverId)!, iso(c.createdAt), c.scopes.join(" "), c.surface,
          c.writeMode, iso(c.lastUsedAt), ...(all ? [c.endedAt === null ? "-" : `${iso(c.endedAt)} (${c.endedReason ?? "ended"})`] : [])])]))
    }
    yield* only(flags, [])
    if (connectionId === undefined) return yield* new UsageInvalid({ message: "connections disconnect <workspace> <connection-id>" })
    const workspace = yield* findWorkspace(workspaceRef)
    // The operator disconnects (actor null); the connection.ended audit entry says "disconnected".
    const { connection, endedNow } = yield* disconnectConnection({ connectionId: ConnectionId.make(connectionId), workspaceId: workspace.id, actorId: null })
    const app = yield* appName(connection.clientId)
    return yield* print(endedNow
      ? `disconnected ${app} (${connection.id}) from ${workspace.name}: its tokens are refused from now on`
      : `connection ${connection.id} (${app}) had already ended (${connection.endedReason ?? "ended"})`)
  })

const allFlag = (flags: ReadonlyMap<string, string>) => {
  const value = flags.get("all")
  return value === undefined || value === "" ? Effect.succeed(value === "") : Effect.fail(new UsageInvalid({ message: "--all takes no value" }))
}

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
  `  per budget per day:          ${g.maxBudgetChangePercentPerDay ?? (g.maxBudgetChangePercent === null ? "none" : "as per change")}`,
  `max changes per day:          ${g.maxChangesPerDay ?? "none"}`,
  `max daily budget per account: ${g.maxDailyBudgetPerAccount ?? "none"}`,
  `protected names:              ${g.protectedNames.length === 0 ? "none" : g.protectedNames.join(", ")}`
].join("\n")

/** A workspace's guardrails, shown and set from the CLI. */
const guardrailsCommand = (verb: string, rest: ReadonlyArray<string>, flags: ReadonlyMap<string, string>, print: (line: string) => Effect.Effect<void>) =>
  Effect.gen(function* () {
    const [workspaceRef] = rest
    if (workspaceRef === undefined) return yield* new UsageInvalid({ message: `guardrails ${verb} <workspace>` })
    if (verb === "show") {
      yield* only(flags, [])
      const workspace = yield* findWorkspace(workspaceRef)
      return yield* print(`guardrails of ${workspace.name}\n${showCaps(yield* showGuardrails(workspace.id))}`)
    }
    yield* only(flags, ["max-budget-change-percent", "max-budget-change-percent-per-day", "max-changes-per-day", "max-daily-budget-per-account", "protected-names"])
    if (flags.size === 0) return yield* new UsageInvalid({ message: "guardrails set <workspace> needs at least one option" })
    const changes: { -readonly [K in keyof GuardrailChanges]: GuardrailChanges[K] } = {}
    const percent = yield* capFlag(flags, "max-budget-change-percent")
    if (percent !== undefined) changes.maxBudgetChangePercent = percent
    const percentPerDay = yield* capFlag(flags, "max-budget-change-percent-per-day")
    if (percentPerDay !== undefined) changes.maxBudgetChangePercentPerDay = percentPerDay
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


/** Everything a command can be refused for, in the CLI's process or in the server: the command's own refusals, the
 * configuration and the database (CLI only), the admin socket (CLI only). */
export type CommandFailure =
  | Effect.Error<ReturnType<typeof runCommand>>
  | Effect.Error<typeof loadAppConfig>
  | Layer.Error<ReturnType<typeof appPorts>>
  | AdminSocketRefused

const apiKeyRefused = "The API key cannot be created: "

/** What each failure says to the person at the terminal, in a sentence: one row per error (a missing row does not compile). */
const sentences: { readonly [K in CommandFailure["_tag"]]: (error: Extract<CommandFailure, { readonly _tag: K }>) => string } = {
  UsageInvalid: (e) => `${e.message}\n\n${usage}`,
  ConfigurationInvalid: (e) => `Configuration: ${e.message}`,
  ConfigError: (e) => `Configuration: ${e.message}`,
  CredentialKeyInvalid: (e) => `Configuration: ${e.message}`,
  MigrationError: (e) => `Failed: the database could not be prepared (${e.message})`,
  UserInvalid: (e) => e.reason === "email_malformed"
    ? `${e.email} is not an e-mail address`
    : `a password needs at least ${passwordMinLength} characters`,
  PasswordRefused: (e) => ({
    too_short: `a password needs at least ${passwordMinLength} characters`,
    too_long: "the password is too long",
    not_repeated: "the two passwords differ",
    wrong_current_password: "the current password is not right"
  })[e.reason],
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
  ApiKeyNotFound: () => "no such API key in this workspace",
  ConnectionNotFound: () => "no such connection in this workspace",
  NotAllowedToManage: () => "only a workspace admin or editor, or the connection's approver, disconnects it",
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
    // The holder did not answer on the admin socket (or has none): a server still starting, or a process that is
    // not a server (another CLI run).
    return `The data folder ${held.dir} is in use by another adgate process${held.pid === null ? "" : ` (pid ${held.pid})`} ` +
      "that did not answer on its admin socket: the embedded database allows one process at a time. If a server is " +
      "starting, run the command again in a moment; otherwise wait for the other process to end (or stop it), or run " +
      "both against PostgreSQL (DATABASE_URL)."
  },
  AdminSocketRefused: (e) => e.message
}

/** What a failure says to the person at the terminal; never a stack trace, never a secret. */
export const describeCommandFailure = (cause: Cause.Cause<CommandFailure>): string => {
  const error = Cause.findErrorOption(cause)
  if (Option.isNone(error)) return "Failed: unexpected error"
  const say = sentences[error.value._tag] as (e: CommandFailure) => string
  return withoutPasswords(say(error.value))
}

/** A command's whole answer: the lines of stdout, the lines of stderr (a refusal's sentence), the exit code. */
export const CommandAnswer = Schema.Struct({
  exitCode: Schema.Literals([0, 1]),
  out: Schema.Array(Schema.String),
  err: Schema.Array(Schema.String)
})
export type CommandAnswer = typeof CommandAnswer.Type

/**
 * Runs `run` (which prints through `say`) to its answer: exit code 0 when done, 1 with the refusal's sentence when
 * refused or failed. The same answer whether the command ran in the CLI or in the server.
 */
export const answerOf = <E extends CommandFailure, R>(run: (say: (line: string) => void) => Effect.Effect<void, E, R>): Effect.Effect<CommandAnswer, never, R> =>
  Effect.suspend(() => {
    const out: Array<string> = []
    return Effect.map(Effect.exit(run((line) => out.push(line))), (exit): CommandAnswer =>
      Exit.isSuccess(exit) ? { exitCode: 0, out, err: [] } : refusedAnswer(exit.cause, out))
  })

/** The answer of a refused or failed command: what it printed before, the refusal's sentence, exit code 1. */
export const refusedAnswer = (cause: Cause.Cause<CommandFailure>, out: ReadonlyArray<string> = []): CommandAnswer =>
  ({ exitCode: 1, out, err: [describeCommandFailure(cause)] })

/** One command against the core's ports, answered (in the server, behind the admin socket). */
export const answerCommand = (argv: ReadonlyArray<string>) => answerOf((say) => runCommand(argv, say))
