// Workspaces, people and their roles, as the Directory port answers them (spec §What the service does 1).
import { Schema } from "effect"

/** admin and editor may connect apps; any other member ("viewer") may not. */
export const Role = Schema.Literals(["admin", "editor", "viewer"])
export type Role = typeof Role.Type

export const Plan = Schema.Literals(["free", "paid"])
export type Plan = typeof Plan.Type

/** A workspace's id (`ws_…`), branded where it enters: a user's or a connection's id cannot be passed for it. */
export const WorkspaceId = Schema.String.pipe(Schema.brand("WorkspaceId"))
export type WorkspaceId = typeof WorkspaceId.Type

export const Workspace = Schema.Struct({
  id: WorkspaceId,
  name: Schema.String,
  plan: Plan,
  credits: Schema.Number,
  createdAt: Schema.Number
})
export type Workspace = typeof Workspace.Type

/** A person's id (`usr_…`), branded where it enters: a workspace's or a key's id cannot be passed for it. */
export const UserId = Schema.String.pipe(Schema.brand("UserId"))
export type UserId = typeof UserId.Type

export const User = Schema.Struct({
  id: UserId,
  email: Schema.String,
  name: Schema.String,
  createdAt: Schema.Number
})
export type User = typeof User.Type

export const Membership = Schema.Struct({
  workspaceId: WorkspaceId,
  userId: UserId,
  role: Role
})
export type Membership = typeof Membership.Type
