// Reads what toolAccess decides on (tools/toolAccess.ts): the workspace's plan, the role of the person behind the
// credential, and the workspace's connected accounts. A Directory or platform that cannot answer fails closed (503).
import { Effect, Option } from "effect"
import type { Principal } from "../credentials/records.ts"
import { Directory } from "../ports/Directory.ts"
import { type Account, Platforms } from "../ports/Platforms.ts"
import type { AccessGrounds } from "./toolAccess.ts"

export const loadAccessGrounds = Effect.fn("tools.loadAccessGrounds")(function* (principal: Principal) {
  const directory = yield* Directory
  const workspace = yield* directory.workspace(principal.workspaceId)
  const role = yield* directory.role(principal.workspaceId, principal.userId)
  const accounts: ReadonlyArray<Account> = yield* (yield* Platforms).accounts(principal.workspaceId)
  const grounds: AccessGrounds & { readonly accounts: ReadonlyArray<Account> } = {
    principal,
    // A workspace that no longer exists grants nothing: read as the free plan with no role (403), never as allowed.
    plan: Option.match(workspace, { onNone: () => "free" as const, onSome: (w) => w.plan }),
    role: Option.isSome(workspace) ? Option.getOrNull(role) : null,
    connectedFamilies: new Set(accounts.map((a) => a.platform)),
    accounts
  }
  return grounds
})
