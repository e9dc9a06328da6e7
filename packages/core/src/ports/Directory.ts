// Workspaces, members, roles and plans. The role look-up may answer "cannot confirm now" (DirectoryUnavailable),
// which the refresh grant turns into 503 temporarily_unavailable when the last confirmation is over 24 hours old.
// adgate's own tables implement it (adapters-sql DirectorySql), or a host's (DirectoryHostSql over the host's reads);
// what a host's answers must promise (fresh at each call, consistent within a request, stable ids) is
// docs/embedding.md, Directory.
import { Context, Effect, Option, Schema } from "effect"
import type { StoreUnavailable } from "./errors.ts"
import type { Membership, Plan, Role, User, Workspace, WorkspaceId, UserId } from "../workspaces/Workspace.ts"
import type { EmailTaken } from "../people/errors.ts"

export class DirectoryUnavailable extends Schema.TaggedError<DirectoryUnavailable>()("DirectoryUnavailable", {
  message: Schema.String
}) {}

type Fx<A> = Effect.Effect<A, DirectoryUnavailable>

/** A workspace with how many members it has (lists of the CLI and the management pages). */
export interface WorkspaceListing {
  readonly workspace: Workspace
  readonly members: number
}

/** A person with the workspaces they belong to, by workspace name. */
export interface UserListing {
  readonly user: User
  readonly workspaces: ReadonlyArray<{ readonly workspace: Workspace; readonly role: Role }>
}

export interface DirectoryShape {
  readonly workspace: (id: WorkspaceId) => Fx<Option.Option<Workspace>>
  readonly user: (id: UserId) => Fx<Option.Option<User>>
  readonly userByEmail: (email: string) => Fx<Option.Option<User>>
  /** The person's role in the workspace, none when not a member. */
  readonly role: (workspaceId: WorkspaceId, userId: UserId) => Fx<Option.Option<Role>>
  /**
   * The workspace's plan and the person's role in it, in one read (the bearer check of every REST and MCP request):
   * none when there is no such workspace, `role` null when the person is not a member.
   */
  readonly standing: (workspaceId: WorkspaceId, userId: UserId) => Fx<Option.Option<{ readonly plan: Plan; readonly role: Role | null }>>
  readonly workspacesOf: (userId: UserId) => Fx<ReadonlyArray<{ readonly workspace: Workspace; readonly role: Role }>>
  readonly members: (workspaceId: WorkspaceId) => Fx<ReadonlyArray<Membership & { readonly user: User }>>
  // Administration (CLI, seeding, management pages).
  /** Every workspace, oldest first. */
  readonly listWorkspaces: () => Fx<ReadonlyArray<WorkspaceListing>>
  /** Every person with their workspaces (each list by name), oldest first. */
  readonly listUsers: () => Fx<ReadonlyArray<UserListing>>
  /** The workspaces whose name equals `name`, ignoring case and surrounding spaces. */
  readonly workspacesNamed: (name: string) => Fx<ReadonlyArray<Workspace>>
  /** True when there is neither a person nor a workspace yet (first start). */
  readonly isEmpty: () => Fx<boolean>
  /** Adds (or, for a known id, replaces) a workspace; its credits are kept to six decimals (core's roundCredits). */
  readonly createWorkspace: (workspace: Workspace) => Effect.Effect<void, DirectoryUnavailable | StoreUnavailable>
  /** Adds (or, for a known id, updates) a person; fails EmailTaken when another person has the address. */
  readonly createUser: (user: User) => Effect.Effect<void, EmailTaken | DirectoryUnavailable | StoreUnavailable>
  /**
   * Gives the person `role` in the workspace (none ends the membership); answers the role it replaced, none when the
   * person was not a member, so that a change can be told from before to after without a read of its own.
   */
  readonly setRole: (workspaceId: WorkspaceId, userId: UserId, role: Option.Option<Role>) => Fx<Option.Option<Role>>
  readonly setPlan: (workspaceId: WorkspaceId, plan: Plan) => Fx<void>
  /** Sets the balance, kept to six decimals (core's roundCredits), with no ledger entry (CreditsLedger.setBalance writes one). */
  readonly setCredits: (workspaceId: WorkspaceId, credits: number) => Fx<void>
}
export class Directory extends Context.Service<Directory, DirectoryShape>()("core/ports/Directory") {}
