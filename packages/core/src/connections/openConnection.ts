// Opens the connection when the code is exchanged (spec §States: Connection, row "none → active": admins e-mailed,
// audit log entry) and issues its first token pair (generation 1). The mail and the entry are the outbox readers'
// work: this answers the ConnectionOpened event the exchange appends in its transaction.
import { Clock, Effect } from "effect"
import type { Connection, ConnectionId } from "./Connection.ts"
import { connectionLifetimeMs } from "./transitionConnection.ts"
import type { AuthorizationCode } from "../codes/AuthorizationCode.ts"
import type { DomainEvent } from "../commands/DomainEvent.ts"
import { mintSecret, planTokenPair } from "../credentials/issueTokenPair.ts"
import { Prefix } from "../ports/Secrets.ts"

export interface OpenConnectionInput {
  /** The code as saved by the exchange: status "used", carrying the connection id and the approved grant. */
  readonly code: AuthorizationCode & { readonly connectionId: ConnectionId }
}

/**
 * The connection, its first access token's record and the pair, and its ConnectionOpened, made without writing
 * anything: the exchange writes them with the code's save (codes/exchangeCode.ts). Untraced: a step inside the
 * exchange's span (a traced Effect.fn costs a span and a stack capture per call).
 */
export const planConnection = Effect.fnUntraced(function* (input: OpenConnectionInput) {
  const { code } = input
  const now = yield* Clock.currentTimeMillis
  const refresh = yield* mintSecret(Prefix.refreshToken)
  const connection: Connection = {
    id: code.connectionId,
    version: 1,
    clientId: code.clientId,
    workspaceId: code.workspaceId,
    approverId: code.userId,
    scopes: code.scopes,
    surface: code.surface,
    platforms: code.platforms,
    writeMode: code.writeMode,
    status: "active",
    endedReason: null,
    createdAt: now,
    endedAt: null,
    // Spec §Limits: "365 days from approval". The code is issued when the person selects Allow access, so its
    // issue time is the approval, not this exchange (up to 10 minutes later).
    expiresAt: code.issuedAt + connectionLifetimeMs,
    // The consent decision checked the role moments ago (within the code's 10 minutes).
    roleConfirmedAt: code.issuedAt,
    refresh: { hash: refresh.hash, generation: 1, issuedAt: now },
    spent: null,
    withdrawn: [],
    lastUsedAt: now
  }
  const { record, tokens } = yield* planTokenPair({
    connectionId: connection.id,
    clientId: connection.clientId,
    workspaceId: connection.workspaceId,
    generation: 1,
    scopes: connection.scopes,
    surface: connection.surface,
    refresh
  })
  const event: DomainEvent = {
    _tag: "ConnectionOpened", at: now, connectionId: connection.id, workspaceId: connection.workspaceId,
    clientId: connection.clientId, approverId: connection.approverId, scopes: connection.scopes,
    surface: connection.surface, platforms: connection.platforms, writeMode: connection.writeMode
  }
  return { opened: { connection, tokens }, accessToken: record, event }
})
