// The refresh_token grant (RFC 6749 §6, spec §POST /oauth/token, §States: Connection): a command on the runner
// (commands/runCommand.ts): load by hash → re-check the approver's role → pure transition → compare-and-set save →
// issue the new pair in the same write. A rotation causes no event, so it is the save and the access token's insert,
// one statement on SQL (ConnectionStore.saveWith); an ending (reuse, role lost, 365 days) is saved with its
// ConnectionEnded and committed before the refusal is answered; any other refusal spends nothing (docs/decisions.md
// §Atomicity).
import { Effect, Option } from "effect"
import type { Surface } from "../scopes/Scope.ts"
import { RefreshTokenInvalid } from "./errors.ts"
import { type RoleAnswer, refreshTransition } from "./transitionConnection.ts"
import { loadReadFirst, runCommand } from "../commands/runCommand.ts"
import { mintSecret, planTokenPair } from "../credentials/issueTokenPair.ts"
import { GrantReader, type RefreshGrounds } from "../ports/GrantReader.ts"
import { Prefix, type SecretHash, Secrets } from "../ports/Secrets.ts"
import { AccessTokenStore } from "../ports/AccessTokenStore.ts"
import { ConnectionStore } from "../ports/ConnectionStore.ts"
import type { ClientId } from "../clients/Client.ts"

export interface RefreshAttempt {
  readonly refreshToken: string
  /** The authenticated client. */
  readonly clientId: ClientId
  /** The `scope` parameter as sent, null when omitted. */
  readonly scope: string | null
  /** The surface named by `resource`, null when omitted. */
  readonly surface: Surface | null
  /** The grounds already read by this token's hash with the client (GrantReader.clientAndRefreshGrounds). */
  readonly preread?: { readonly presentedHash: SecretHash; readonly grounds: Option.Option<RefreshGrounds> }
}

export const refreshConnection = Effect.fn("connections.refreshConnection")(function* (attempt: RefreshAttempt) {
  const secrets = yield* Secrets
  const store = yield* ConnectionStore
  const grants = yield* GrantReader
  const accessTokens = yield* AccessTokenStore
  const saveWith = store.saveWith
  const presentedHash = attempt.preread?.presentedHash ?? (yield* secrets.hash(attempt.refreshToken))
  const refresh = yield* mintSecret(Prefix.refreshToken)
  // One read (GrantReader: one statement on SQL): the connection with its approver's role now; none when the token
  // endpoint read it already together with the client.
  const grounds = attempt.preread !== undefined ? attempt.preread.grounds : yield* grants.refreshGrounds(presentedHash)
  if (Option.isNone(grounds)) return yield* new RefreshTokenInvalid({ reason: "not_found" })
  // "Cannot be confirmed now" is an answer too: the transition applies the 24-hour grace (spec §Limits). Asked before
  // the command (workspace and approver never change), so that a failing Directory read cannot abort its transaction.
  const role: RoleAnswer = grounds.value.role
  const rotated = yield* runCommand({
    load: loadReadFirst(Option.some(grounds.value.connection), store.findByRefreshHash(presentedHash)),
    missing: () => new RefreshTokenInvalid({ reason: "not_found" }),
    transition: (connection, now) => refreshTransition(connection, {
      _tag: "Refresh", presentedHash, clientId: attempt.clientId, role, scope: attempt.scope, surface: attempt.surface,
      nextRefreshHash: refresh.hash
    }, now),
    // The new access token is planned as a row: with the store's saveWith, the compare-and-set and its insert are one
    // statement on SQL; an ending (reuse, role lost) is saved with its ConnectionEnded the same way.
    writes: {
      _tag: "SavePlanned",
      save: store.save,
      plan: ({ connection, issue, retried }) => Effect.map(planTokenPair({
        connectionId: connection.id,
        clientId: connection.clientId,
        workspaceId: connection.workspaceId,
        generation: issue.generation,
        scopes: issue.scopes,
        surface: issue.surface,
        refresh
      }), ({ record, tokens }) => ({ answer: { connection, tokens, retried }, rows: record, events: [] })),
      write: accessTokens.insert,
      saveWith: saveWith === undefined ? undefined : (next, record, outbox) =>
        saveWith(next, { connections: [], accessTokens: record === null ? [] : [record], outbox })
    }
  }).pipe(
    // A spent token presented again is a stolen token or a broken client: the operator hears of it (docs/operations.md).
    Effect.tapError((error) => error._tag === "RefreshTokenInvalid" && error.reason === "reused"
      ? Effect.logWarning("refresh token reused: the connection is ended").pipe(
        Effect.annotateLogs({ connectionId: grounds.value.connection.id, clientId: grounds.value.connection.clientId }))
      : Effect.void)
  )
  return { connection: rotated.connection, tokens: rotated.tokens, approvedScopes: rotated.connection.scopes, retried: rotated.retried }
})
