// Reads what toolAccess decides on (tools/toolAccess.ts): the workspace's plan, the role of the person behind the
// credential, and the workspace's connected accounts. A Directory or platform that cannot answer fails closed (503).
import { Effect, Option } from "effect"
import type { Principal } from "../credentials/records.ts"
import { Directory } from "../ports/Directory.ts"
import { type Account, Platforms } from "../ports/Platforms.ts"
import type { Plan, Role } from "../workspaces/Workspace.ts"
import type { AccessGrounds } from "./toolAccess.ts"

/** The plan and the role now: all the 403 rows need besides the credential. */
export const loadStanding = Effect.fn("tools.loadStanding")(function* (principal: Principal) {
  // Read by the bearer check of this very request (authenticateBearer): the membership is read once per request.
  if (principal.standing !== undefined) return principal.standing
  // The plan and the role in one read (one statement on SQL), as the bearer check reads them.
  const found = yield* (yield* Directory).standing(principal.workspaceId, principal.userId)
  // A workspace that no longer exists grants nothing: read as the free plan with no role (403), never as allowed.
  const standing: { readonly plan: Plan; readonly role: Role | null } = Option.getOrElse(found, () => ({ plan: "free", role: null }))
  return standing
})

export const withAccounts = (principal: Principal, standing: { readonly plan: Plan; readonly role: Role | null }, accounts: ReadonlyArray<Account>) => {
  const grounds: AccessGrounds & { readonly accounts: ReadonlyArray<Account> } = {
    principal, ...standing, connectedFamilies: new Set(accounts.map((a) => a.platform)), accounts
  }
  return grounds
}

export const loadAccessGrounds = Effect.fn("tools.loadAccessGrounds")(function* (principal: Principal) {
  const standing = yield* loadStanding(principal)
  return withAccounts(principal, standing, yield* (yield* Platforms).accounts(principal.workspaceId))
})
