// The host's ports for hosts that do not use Effect: plain objects of async functions, turned into adgate's port
// layers here (docs/embedding.md, The host's ports). A rejected promise is the port's "cannot answer now": a platform
// that throws is PlatformUnavailable (503, the call is not made), a sign-in check that throws is SignInUnavailable
// (503), a mail that throws stays in the outbox.
import { Effect, Layer, Option } from "effect"
import type { DirectoryReads } from "@adgate/adapters-sql"
import {
  type Account, DirectoryUnavailable, MailDelivery, type MailMessage, MailUndelivered, PlatformUnavailable, Platforms, type PlatformAnswer,
  type Plan, type PlatformFamily, type Role, type User, type Workspace, WorkspaceId, type ProposedChange, SignIn, type SignInRequest, SignInUnavailable, type Tool, type ToolCall, UserId
} from "@adgate/core"

/** The host's platforms: its tool catalogue, its workspaces' connected accounts, what a write would change, the call. */
export interface HostPlatforms {
  /** Every platform family the host offers (`id` is the `<family>` of each tool name `<family>__<tool>`). */
  readonly families: ReadonlyArray<PlatformFamily>
  /** Every tool of every family, in a stable order. */
  readonly tools: ReadonlyArray<Tool>
  /** The workspace's connected accounts (of `family` only, when given). */
  readonly accounts: (workspaceId: string, family?: string) => Promise<ReadonlyArray<Account>>
  /** What a write would change, read before it runs (guardrails, the approval page). */
  readonly preview: (call: ToolCall) => Promise<ProposedChange>
  /**
   * Runs the call with the workspace's credential. A platform that already applied a call with the same
   * `idempotencyToken` must answer its first answer again and change nothing (an approved write is retried after a
   * crash with the same token).
   */
  readonly execute: (call: ToolCall) => Promise<PlatformAnswer>
}

/** The host's own sign-in: who is signed in on a request, by the host's session cookie. */
export interface HostSignInOptions {
  /**
   * The person signed in on this request (their id in the directory, and a value unique and secret to the session
   * that adgate binds its CSRF tokens to), or null when nobody is. Throw only when the host cannot tell now.
   */
  readonly current: (request: SignInRequest) => Promise<{ readonly userId: string; readonly sessionKey: string } | null>
  /** The host's sign-in page, coming back to `returnTo` (an absolute URL on adgate's origin) once signed in. */
  readonly signInUrl: (returnTo: string) => string
  /** Where adgate's Sign out button sends the person. */
  readonly signOutUrl: string
}

/** A person as the host's directory answers them. */
export interface HostUser {
  readonly id: string
  readonly email: string
  readonly name: string
  /** Milliseconds since 1970; 0 when the host does not say. */
  readonly createdAt?: number
}

/** A workspace as the host's directory answers it (its credits balance is adgate's ledger, not the host's). */
export interface HostWorkspace {
  readonly id: string
  readonly name: string
  /** `paid` allows platform tools (spec §Plans); `free` does not. */
  readonly plan: Plan
  readonly createdAt?: number
}

/**
 * The host's people, workspaces and memberships, read from its own tables when adgate needs them: on every bearer
 * check (`workspace` and `role`), every refresh (`role`), every page. Answers must be the host's state at the time of
 * the call (no cache older than the host is willing to let a removed member keep access), consistent with each other
 * within one request, and fast: they are on every request's path. Throw only when the host cannot answer now (503).
 */
export interface HostDirectory {
  readonly user: (id: string) => Promise<HostUser | null>
  readonly userByEmail: (email: string) => Promise<HostUser | null>
  readonly workspace: (id: string) => Promise<HostWorkspace | null>
  /** The person's role in the workspace, null when not a member. */
  readonly role: (workspaceId: string, userId: string) => Promise<Role | null>
  readonly workspacesOf: (userId: string) => Promise<ReadonlyArray<{ readonly workspace: HostWorkspace; readonly role: Role }>>
  readonly members: (workspaceId: string) => Promise<ReadonlyArray<{ readonly user: HostUser; readonly role: Role }>>
}

/** The host's mail delivery: resolves once the mail is accepted; a rejection leaves it in the outbox for later. */
export interface HostMail {
  readonly send: (mail: MailMessage) => Promise<void>
}

const reason = (e: unknown) => (e instanceof Error ? e.name : typeof e)

export const platformsLayer = (host: HostPlatforms): Layer.Layer<Platforms> => {
  const call = <A>(platform: string, f: () => Promise<A>) =>
    // The host's error text is not passed on: it may quote a credential or an upstream URL.
    Effect.tryPromise({ try: f, catch: (e) => new PlatformUnavailable({ platform, message: `the platform did not answer (${reason(e)})` }) })
  return Layer.succeed(Platforms, Platforms.of({
    families: host.families,
    tools: host.tools,
    accounts: (workspaceId, family) => call(family ?? "accounts", () => host.accounts(workspaceId, family)),
    preview: (c) => call(c.tool.family, () => host.preview(c)),
    execute: (c) => call(c.tool.family, () => host.execute(c))
  }))
}

export const signInLayer = (host: HostSignInOptions): Layer.Layer<SignIn> =>
  Layer.succeed(SignIn, SignIn.of({
    current: (request) =>
      Effect.tryPromise({
        try: () => host.current(request),
        catch: (e) => new SignInUnavailable({ message: `the host could not tell who is signed in (${reason(e)})` })
      }).pipe(Effect.map((found) =>
        found === null || found.sessionKey === "" ? Option.none() : Option.some({ userId: UserId.make(found.userId), sessionKey: found.sessionKey }))),
    signInUrl: host.signInUrl,
    signOutUrl: host.signOutUrl
  }))

export const mailDeliveryLayer = (host: HostMail): Layer.Layer<MailDelivery> =>
  Layer.succeed(MailDelivery, MailDelivery.of({
    deliver: (mail) =>
      Effect.tryPromise({ try: () => host.send(mail), catch: (e) => new MailUndelivered({ message: `the host did not accept the mail (${reason(e)})` }) })
  }))

const userOf = (u: HostUser): User => ({ id: UserId.make(u.id), email: u.email, name: u.name, createdAt: u.createdAt ?? 0 })
const workspaceOf = (w: HostWorkspace): Workspace =>
  ({ id: WorkspaceId.make(w.id), name: w.name, plan: w.plan, credits: 0, createdAt: w.createdAt ?? 0 })

/** The host's directory as the reads adgate's Directory makes of it (adapters-sql DirectoryHostSql). */
export const directoryReads = (host: HostDirectory): DirectoryReads => {
  const ask = <A>(operation: string, f: () => Promise<A>) =>
    Effect.tryPromise({ try: f, catch: (e) => new DirectoryUnavailable({ message: `${operation}: the host's directory did not answer (${reason(e)})` }) })
  return {
    user: (id) => Effect.map(ask("user", () => host.user(id)), (u) => Option.map(Option.fromNullishOr(u), userOf)),
    userByEmail: (email) => Effect.map(ask("userByEmail", () => host.userByEmail(email)), (u) => Option.map(Option.fromNullishOr(u), userOf)),
    workspace: (id) => Effect.map(ask("workspace", () => host.workspace(id)), (w) => Option.map(Option.fromNullishOr(w), workspaceOf)),
    role: (workspaceId, userId) => Effect.map(ask("role", () => host.role(workspaceId, userId)), Option.fromNullishOr),
    workspacesOf: (userId) =>
      Effect.map(ask("workspacesOf", () => host.workspacesOf(userId)), (list) => list.map((w) => ({ workspace: workspaceOf(w.workspace), role: w.role }))),
    members: (workspaceId) =>
      Effect.map(ask("members", () => host.members(workspaceId)), (list) =>
        list.map((m) => ({ workspaceId, userId: UserId.make(m.user.id), role: m.role, user: userOf(m.user) })))
  }
}
