// Makes a person a member of a workspace with a role, changes the role, or ends the membership ("none").
import { Effect, Option } from "effect"
import { Directory } from "../ports/Directory.ts"
import { findUser } from "../people/findUser.ts"
import { findWorkspace } from "./findWorkspace.ts"
import type { Role } from "./Workspace.ts"

export const setMemberRole = Effect.fn("workspaces.setMemberRole")(function* (workspaceRef: string, email: string, role: Role | "none") {
  const workspace = yield* findWorkspace(workspaceRef)
  const user = yield* findUser(email)
  yield* (yield* Directory).setRole(workspace.id, user.id, role === "none" ? Option.none() : Option.some(role))
  return { workspace, user }
})
