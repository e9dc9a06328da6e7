// Workspaces, people and their roles, as the Directory port answers them (spec §What the service does 1).
import { Schema } from "effect"

/** admin and editor may connect apps; any other member ("viewer") may not. */
export const Role = Schema.Literals(["admin", "editor", "viewer"])
export type Role = typeof Role.Type

export const Plan = Schema.Literals(["free", "paid"])
export type Plan = typeof Plan.Type

export const Workspace = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  plan: Plan,
  credits: Schema.Number,
  createdAt: Schema.Number
})
export type Workspace = typeof Workspace.Type

export const User = Schema.Struct({
  id: Schema.String,
  email: Schema.String,
  name: Schema.String,
  createdAt: Schema.Number
})
export type User = typeof User.Type

export const Membership = Schema.Struct({
  workspaceId: Schema.String,
  userId: Schema.String,
  role: Role
})
export type Membership = typeof Membership.Type
