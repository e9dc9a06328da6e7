// The refresh_token grant (RFC 6749 §6, spec §POST /oauth/token, §States: Connection): load by hash → re-check the
// approver's role → pure transition → compare-and-set save → issue the new pair. A refusal spends nothing.
import { Clock, Effect, Option } from "effect"
import type { Surface } from "../scopes/Scope.ts"
import { RefreshTokenInvalid } from "./errors.ts"
import { auditEnded } from "./endConnection.ts"
import { type RoleAnswer, transitionConnection } from "./transitionConnection.ts"
import { issueTokenPair, mintSecret } from "../credentials/issueTokenPair.ts"
import { Directory } from "../ports/Directory.ts"
import { Prefix, Secrets } from "../ports/Secrets.ts"
import { ConnectionStore } from "../ports/Stores.ts"

export interface RefreshAttempt {
  readonly refreshToken: string
  /** The authenticated client. */
  readonly clientId: string
  /** The `scope` parameter as sent, null when omitted. */
  readonly scope: string | null
  /** The surface named by `resource`, null when omitted. */
  readonly surface: Surface | null
}

export const refreshConnection = Effect.fn("connections.refreshConnection")(function* (attempt: RefreshAttempt) {
  const secrets = yield* Secrets
  const store = yield* ConnectionStore
  const directory = yield* Directory
  const presentedHash = yield* secrets.hash(attempt.refreshToken)
  const refresh = yield* mintSecret(Prefix.refreshToken)
  const decide = Effect.gen(function* () {
    const found = yield* store.findByRefreshHash(presentedHash)
    if (Option.isNone(found)) return yield* new RefreshTokenInvalid({ reason: "not_found" })
    const connection = found.value
    // "Cannot be confirmed now" is an answer too: the transition applies the 24-hour grace (spec §Limits).
    const role: RoleAnswer = yield* directory.role(connection.workspaceId, connection.approverId).pipe(
      Effect.map((r): RoleAnswer => ({ _tag: "Confirmed", role: Option.getOrNull(r) })),
      Effect.catchTag("DirectoryUnavailable", () => Effect.succeed<RoleAnswer>({ _tag: "Unconfirmed" }))
    )
    const now = yield* Clock.currentTimeMillis
    const decision = transitionConnection(connection, {
      _tag: "Refresh", presentedHash, clientId: attempt.clientId, role, scope: attempt.scope, surface: attempt.surface,
      nextRefreshHash: refresh.hash
    }, now)
    switch (decision._tag) {
      case "Refused":
        return yield* decision.error
      case "Unchanged":
        return yield* new RefreshTokenInvalid({ reason: "connection_ended" })
      case "Ended":
        yield* store.save(decision.next)
        yield* auditEnded(decision.next, decision.reason, null)
        return yield* (decision.error ?? new RefreshTokenInvalid({ reason: "connection_ended" }))
      case "Rotated":
        yield* store.save(decision.next)
        return decision
    }
  }).pipe(Effect.retry({ while: (error) => error._tag === "Conflict", times: 3 }))
  const rotated = yield* decide
  const tokens = yield* issueTokenPair({
    connectionId: rotated.next.id,
    clientId: rotated.next.clientId,
    workspaceId: rotated.next.workspaceId,
    generation: rotated.issue.generation,
    scopes: rotated.issue.scopes,
    surface: rotated.issue.surface,
    refresh
  })
  return { connection: rotated.next, tokens, approvedScopes: rotated.next.scopes }
})
