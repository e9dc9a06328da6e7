// What the CLI and first-start seeding do to the directory: add people and workspaces, set roles, plans and
// credits, create API keys (printed once), list. Listing reads the SQL tables, which the Directory port cannot list.
import { Clock, Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import {
  createApiKey,
  CreditsLedger,
  Directory,
  PasswordHasher,
  PeopleStore,
  type Plan,
  Prefix,
  type Role,
  type Scope,
  Secrets,
  type User,
  type Workspace,
  type WriteMode
} from "@adgate/core"
import { CommandRefused } from "./errors.ts"

/** A fresh password for a person who was given none: 144 random bits, base64url. */
export const generatePassword = Effect.gen(function* () {
  const value = yield* (yield* Secrets).generate(Prefix.csrf)
  return value.slice(Prefix.csrf.length, Prefix.csrf.length + 24)
})

const emailPattern = /^[^\s@]+@[^\s@]+$/

export const addUser = (input: { readonly email: string; readonly name?: string; readonly password: string }) =>
  Effect.gen(function* () {
    const directory = yield* Directory
    const email = input.email.trim()
    if (!emailPattern.test(email)) return yield* new CommandRefused({ message: `not an e-mail address: ${email}` })
    if (input.password.length < 8) return yield* new CommandRefused({ message: "a password needs at least 8 characters" })
    if (Option.isSome(yield* directory.userByEmail(email))) return yield* new CommandRefused({ message: `a person with ${email} exists already` })
    const user: User = {
      id: yield* (yield* Secrets).generate(Prefix.user),
      email,
      name: input.name?.trim() || email.slice(0, email.indexOf("@")),
      createdAt: yield* Clock.currentTimeMillis
    }
    yield* directory.createUser(user)
    yield* (yield* PeopleStore).setPasswordHash(user.id, yield* (yield* PasswordHasher).hash(input.password))
    return user
  })

export const addWorkspace = (input: { readonly name: string; readonly plan: Plan; readonly credits?: number }) =>
  Effect.gen(function* () {
    const name = input.name.trim()
    if (name === "") return yield* new CommandRefused({ message: "a workspace needs a name" })
    const workspace: Workspace = {
      id: yield* (yield* Secrets).generate(Prefix.workspace),
      name,
      plan: input.plan,
      credits: input.credits ?? 0,
      createdAt: yield* Clock.currentTimeMillis
    }
    yield* (yield* Directory).createWorkspace(workspace)
    return workspace
  })

export interface WorkspaceRow {
  readonly id: string
  readonly name: string
  readonly plan: string
  readonly credits: number
  readonly members: number
}

export interface UserRow {
  readonly id: string
  readonly email: string
  readonly name: string
  readonly workspaces: string
}

export const listWorkspaces = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return yield* sql<WorkspaceRow>`SELECT w.id, w.name, w.plan, w.credits,
      (SELECT count(*)::int FROM memberships m WHERE m.workspace_id = w.id) AS members
    FROM workspaces w ORDER BY w.created_at, w.name`
})

export const listUsers = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return yield* sql<UserRow>`SELECT u.id, u.email, u.name,
      coalesce((SELECT string_agg(w.name || ' (' || m.role || ')', ', ' ORDER BY w.name)
        FROM memberships m JOIN workspaces w ON w.id = m.workspace_id WHERE m.user_id = u.id), '') AS workspaces
    FROM users u ORDER BY u.created_at, u.email`
})

export const databaseIsEmpty = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ readonly n: number }>`SELECT ((SELECT count(*) FROM users) + (SELECT count(*) FROM workspaces))::int AS n`
  return (rows[0]?.n ?? 0) === 0
})

/** A workspace by id, or by name (case-insensitive) when the name is unambiguous. */
export const findWorkspace = (ref: string) =>
  Effect.gen(function* () {
    const byId = yield* (yield* Directory).workspace(ref)
    if (Option.isSome(byId)) return byId.value
    const matches = (yield* listWorkspaces).filter((w) => w.name.toLowerCase() === ref.trim().toLowerCase())
    if (matches.length === 0) return yield* new CommandRefused({ message: `no workspace ${ref}` })
    if (matches.length > 1) return yield* new CommandRefused({ message: `${matches.length} workspaces are named ${ref}: use the id` })
    const found = yield* (yield* Directory).workspace(matches[0]!.id)
    if (Option.isNone(found)) return yield* new CommandRefused({ message: `no workspace ${ref}` })
    return found.value
  })

export const findUser = (email: string) =>
  Effect.gen(function* () {
    const user = yield* (yield* Directory).userByEmail(email.trim())
    if (Option.isNone(user)) return yield* new CommandRefused({ message: `no person with ${email}` })
    return user.value
  })

export const setMember = (workspaceRef: string, email: string, role: Role | "none") =>
  Effect.gen(function* () {
    const workspace = yield* findWorkspace(workspaceRef)
    const user = yield* findUser(email)
    yield* (yield* Directory).setRole(workspace.id, user.id, role === "none" ? Option.none() : Option.some(role))
    return { workspace, user }
  })

export const setPlan = (workspaceRef: string, plan: Plan) =>
  Effect.gen(function* () {
    const workspace = yield* findWorkspace(workspaceRef)
    yield* (yield* Directory).setPlan(workspace.id, plan)
    return workspace
  })

export const setCredits = (workspaceRef: string, credits: number) =>
  Effect.gen(function* () {
    if (!Number.isFinite(credits) || credits < 0) return yield* new CommandRefused({ message: "credits must be a number of 0 or more" })
    const workspace = yield* findWorkspace(workspaceRef)
    // Through the ledger, so that its entries explain the new balance (an administrator's grant or charge).
    const ledger = yield* CreditsLedger
    const now = yield* Clock.currentTimeMillis
    const difference = credits - (yield* ledger.balance(workspace.id))
    const movement = { workspaceId: workspace.id, amount: Math.abs(difference), reason: "set by an administrator (CLI)", reference: null, now }
    if (difference > 0) yield* ledger.grant(movement)
    if (difference < 0) yield* ledger.charge(movement)
    return workspace
  })

export const createKey = (input: {
  readonly workspace: string
  readonly creatorEmail: string
  readonly name: string
  readonly scopes: ReadonlyArray<Scope>
  readonly toolWrites: WriteMode
}) =>
  Effect.gen(function* () {
    const workspace = yield* findWorkspace(input.workspace)
    const creator = yield* findUser(input.creatorEmail)
    return yield* createApiKey({
      workspaceId: workspace.id,
      actorId: creator.id,
      name: input.name,
      scopes: input.scopes,
      toolWrites: input.toolWrites
    })
  })
