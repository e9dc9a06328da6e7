// The refresh_token grant (RFC 6749 §6, spec §POST /oauth/token, §States: Connection): load by hash → re-check the
// approver's role → pure transition → compare-and-set save → issue the new pair. A refusal spends nothing; the
// rotation and the new access token are one transaction, so a failure spends nothing either (§Atomicity).
import { Clock, Effect, Option } from "effect"
import type { Surface } from "../scopes/Scope.ts"
import type { Connection } from "./Connection.ts"
import { RefreshTokenInvalid } from "./errors.ts"
import { auditEnded } from "./endConnection.ts"
import { type RoleAnswer, transitionConnection } from "./transitionConnection.ts"
import { issueTokenPair, mintSecret } from "../credentials/issueTokenPair.ts"
import { Directory } from "../ports/Directory.ts"
import { Prefix, Secrets } from "../ports/Secrets.ts"
import { ConnectionStore } from "../ports/Stores.ts"
import { Transactor } from "../ports/Transactor.ts"

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
  const transactor = yield* Transactor
  const presentedHash = yield* secrets.hash(attempt.refreshToken)
  const refresh = yield* mintSecret(Prefix.refreshToken)
  const located = yield* store.findByRefreshHash(presentedHash)
  if (Option.isNone(located)) return yield* new RefreshTokenInvalid({ reason: "not_found" })
  // "Cannot be confirmed now" is an answer too: the transition applies the 24-hour grace (spec §Limits). Asked before
  // the transaction (workspace and approver never change), so that a failing Directory read cannot abort it.
  const role: RoleAnswer = yield* directory.role(located.value.workspaceId, located.value.approverId).pipe(
    Effect.map((r): RoleAnswer => ({ _tag: "Confirmed", role: Option.getOrNull(r) })),
    Effect.catchTag("DirectoryUnavailable", () => Effect.succeed<RoleAnswer>({ _tag: "Unconfirmed" }))
  )
  // The first attempt decides on the connection just read; only a retry after a lost race reads it again.
  let loaded: Option.Option<Connection> = located
  const decide = Effect.gen(function* () {
    const found = Option.isSome(loaded) ? loaded : yield* store.findByRefreshHash(presentedHash)
    loaded = Option.none()
    if (Option.isNone(found)) return yield* new RefreshTokenInvalid({ reason: "not_found" })
    const connection = found.value
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
        // Reuse, role lost, 365 days: the ending must stay, so it is returned out of the transaction, not failed in it.
        yield* store.save(decision.next)
        yield* auditEnded(decision.next, decision.reason, null)
        return { _tag: "Ended", error: decision.error ?? new RefreshTokenInvalid({ reason: "connection_ended" }) } as const
      case "Rotated": {
        yield* store.save(decision.next)
        const tokens = yield* issueTokenPair({
          connectionId: decision.next.id,
          clientId: decision.next.clientId,
          workspaceId: decision.next.workspaceId,
          generation: decision.issue.generation,
          scopes: decision.issue.scopes,
          surface: decision.issue.surface,
          refresh
        })
        return { _tag: "Rotated", connection: decision.next, tokens } as const
      }
    }
  }).pipe(Effect.retry({ while: (error) => error._tag === "Conflict", times: 3 }))
  const outcome = yield* transactor.atomically(decide)
  if (outcome._tag === "Ended") return yield* outcome.error
  return { connection: outcome.connection, tokens: outcome.tokens, approvedScopes: outcome.connection.scopes }
})
