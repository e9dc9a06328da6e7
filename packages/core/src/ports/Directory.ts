// Workspaces, members, roles and plans. The role look-up may answer "cannot confirm now" (DirectoryUnavailable),
// which the refresh grant turns into 503 temporarily_unavailable when the last confirmation is over 24 hours old.
import { Context, Effect, Option, Schema } from "effect"
import type { StoreUnavailable } from "./errors.ts"
import type { Membership, Plan, Role, User, Workspace } from "../workspaces/Workspace.ts"

export class DirectoryUnavailable extends Schema.TaggedError<DirectoryUnavailable>()("DirectoryUnavailable", {
  message: Schema.String
}) {}

type Fx<A> = Effect.Effect<A, DirectoryUnavailable>

export interface DirectoryShape {
  readonly workspace: (id: string) => Fx<Option.Option<Workspace>>
  readonly user: (id: string) => Fx<Option.Option<User>>
  readonly userByEmail: (email: string) => Fx<Option.Option<User>>
  /** The person's role in the workspace, none when not a member. */
  readonly role: (workspaceId: string, userId: string) => Fx<Option.Option<Role>>
  readonly workspacesOf: (userId: string) => Fx<ReadonlyArray<{ readonly workspace: Workspace; readonly role: Role }>>
  readonly members: (workspaceId: string) => Fx<ReadonlyArray<Membership & { readonly user: User }>>
  // Administration (CLI, seeding, management pages).
  readonly createWorkspace: (workspace: Workspace) => Effect.Effect<void, DirectoryUnavailable | StoreUnavailable>
  readonly createUser: (user: User) => Effect.Effect<void, DirectoryUnavailable | StoreUnavailable>
  readonly setRole: (workspaceId: string, userId: string, role: Option.Option<Role>) => Fx<void>
  readonly setPlan: (workspaceId: string, plan: Plan) => Fx<void>
  readonly setCredits: (workspaceId: string, credits: number) => Fx<void>
}
export class Directory extends Context.Service<Directory, DirectoryShape>()("core/ports/Directory") {}
