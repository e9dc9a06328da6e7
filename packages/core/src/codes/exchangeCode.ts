// The authorization_code grant (RFC 6749 §4.1.3, RFC 7636 §4.6, spec §POST /oauth/token): a command on the runner
// (commands/runCommand.ts): load by hash → pure transition → compare-and-set save → open the connection, issue its
// tokens and append its ConnectionOpened (the audit entry and the admins' mail come from it through the outbox
// readers), all in one write (one statement on SQL: CodeStore.saveHoldingClient, made only while the client is usable): a
// failure anywhere leaves the code unspent for a retry (docs/decisions.md §Atomicity). A refusal that counts an attempt commits it before answering; a reuse ends the first connection.
import { Effect, Option } from "effect"
import type { Surface } from "../scopes/Scope.ts"
import type { Client } from "../clients/Client.ts"
import type { AuthorizationCode } from "./AuthorizationCode.ts"
import { type Connection, ConnectionId } from "../connections/Connection.ts"
import type { AccessToken } from "../credentials/records.ts"
import type { OutboxAppend } from "../ports/EventOutbox.ts"
import { CodeNotFound, type CodeReused, VerifierMalformed } from "./errors.ts"
import { exchangeTransition } from "./transitionCode.ts"
import type { DomainEvent } from "../commands/DomainEvent.ts"
import { loadReadFirst, runCommand } from "../commands/runCommand.ts"
import { endConnection } from "../connections/endConnection.ts"
import { planConnection } from "../connections/openConnection.ts"
import { Prefix, type SecretHash, Secrets } from "../ports/Secrets.ts"
import { GrantReader } from "../ports/GrantReader.ts"
import { AccessTokenStore } from "../ports/AccessTokenStore.ts"
import { CodeStore, type CodeStoreShape } from "../ports/CodeStore.ts"
import { ConnectionStore } from "../ports/ConnectionStore.ts"

/** RFC 7636 §4.1: code_verifier = 43*128unreserved. */
export const isWellFormedVerifier = (verifier: string): boolean => /^[A-Za-z0-9\-._~]{43,128}$/.test(verifier)

/** The rows an exchange adds: the connection and its first access token. */
interface OpenedRows {
  readonly connection: Connection
  readonly accessToken: AccessToken
}

export interface ExchangeAttempt {
  readonly code: string
  /** The client authenticated by the token endpoint. */
  readonly client: Client
  readonly redirectUri: string | null
  readonly codeVerifier: string
  /** The surface named by `resource`, null when omitted. */
  readonly surface: Surface | null
  /** The code already read by this code's hash with the client (GrantReader.clientAndCode). */
  readonly preread?: { readonly codeHash: SecretHash; readonly code: Option.Option<AuthorizationCode> }
}

/**
 * A reuse's own writes, beside its refusal. The code's version moves on, so that an exchange still opening its connection sees it
 * (exchangeCode re-reads it after committing, on a store without saveHoldingClient); a lost race here means another reuse already moved it, which is all
 * that is needed. RFC 6749 §4.1.2: a second exchange is refused and the connection made by the first one ends; its
 * ConnectionEnded is appended by endConnection's own command, in this same unit of work.
 */
const endReused = Effect.fnUntraced(function* (save: CodeStoreShape["save"], error: CodeReused, code: AuthorizationCode) {
  yield* save({ ...code, version: code.version + 1 }).pipe(Effect.catchTag("Conflict", () => Effect.void))
  if (error.connectionId !== null)
    yield* endConnection(error.connectionId, "code_reused", null).pipe(Effect.catchTag("ConnectionNotFound", () => Effect.void))
  return [] as ReadonlyArray<DomainEvent>
})

export const exchangeCode = Effect.fn("codes.exchangeCode")(
  function* (attempt: ExchangeAttempt) {
    if (!isWellFormedVerifier(attempt.codeVerifier)) return yield* new VerifierMalformed()
    const secrets = yield* Secrets
    const codes = yield* CodeStore
    const connections = yield* ConnectionStore
    const accessTokens = yield* AccessTokenStore
    const saveHoldingClient = codes.saveHoldingClient
    const codeHash = attempt.preread?.codeHash ?? (yield* secrets.hash(attempt.code))
    // RFC 7636 §4.6: BASE64URL(SHA-256(ASCII(code_verifier))), the same digest the Secrets port stores secrets by.
    const verifierChallenge = yield* secrets.hash(attempt.codeVerifier)
    const connectionId = ConnectionId.make(yield* secrets.generate(Prefix.connection))
    // The first attempt decides on the code read with the client (when the token endpoint did).
    const read = codes.findByHash(codeHash)
    const outcome = yield* runCommand({
      load: attempt.preread === undefined ? read : loadReadFirst(attempt.preread.code, read),
      missing: () => new CodeNotFound(),
      transition: (code, now) => exchangeTransition(code, {
        _tag: "Exchange", clientId: attempt.client.clientId, redirectUri: attempt.redirectUri, verifierChallenge,
        surface: attempt.surface, connectionId
      }, now),
      writes: {
        _tag: "SavePlanned",
        save: codes.save,
        // The connection and its first access token are planned as rows: with the store's saveHoldingClient, the code's
        // compare-and-set, both inserts and the ConnectionOpened are one statement on SQL.
        plan: (spent) => Effect.map(
          planConnection({ code: { ...spent, connectionId } }),
          ({ opened, accessToken, event }) => ({
            answer: { opened, version: spent.version }, rows: { connection: opened.connection, accessToken }, events: [event]
          })
        ),
        write: (rows: OpenedRows) => Effect.andThen(connections.insert(rows.connection), accessTokens.insert(rows.accessToken)),
        saveWith: saveHoldingClient === undefined ? undefined : (next: AuthorizationCode, rows: OpenedRows | null, outbox: OutboxAppend) =>
          saveHoldingClient(next, { connections: rows === null ? [] : [rows.connection], accessTokens: rows === null ? [] : [rows.accessToken], outbox }),
        // Only a reuse writes beside its refusal; any other refusal opens no transaction.
        onRefused: (error, code) => error._tag !== "CodeReused" ? null : endReused(codes.save, error, code)
      }
    })
    // Without the store's saveHoldingClient, a second exchange or the app's removal may have happened while the
    // connection was being opened: its endConnection found nothing to end yet. Re-read after committing, so that one
    // side always sees the other (GrantReader: one read). With saveHoldingClient neither can: the code's spend and the
    // connection are one write, and a removal and that write see each other (ports/CodeStore.ts).
    if (saveHoldingClient === undefined) {
      const after = yield* (yield* GrantReader).recheckExchange(codeHash, attempt.client.clientId)
      const removed = !after.clientUsable
      if (removed || after.codeVersion !== outcome.version)
        yield* endConnection(connectionId, removed ? "app_removed" : "code_reused", null)
    }
    return outcome.opened
  }
)
