// The authorization_code grant (RFC 6749 §4.1.3, RFC 7636 §4.6, spec §POST /oauth/token): load by hash → pure
// transition → compare-and-set save (a lost race reloads and decides again) → open the connection and its tokens,
// all in one transaction: a failure anywhere leaves the code unspent for a retry (docs/decisions.md §Atomicity).
import { Clock, Effect, Option } from "effect"
import type { Surface } from "../scopes/Scope.ts"
import type { Client } from "../clients/Client.ts"
import { CodeNotFound, VerifierMalformed } from "./errors.ts"
import { transitionCode } from "./transitionCode.ts"
import { connectionMailRecipients } from "../audit/mailAdminsOfConnection.ts"
import { findClientForToken } from "../clients/resolveClient.ts"
import { endConnection } from "../connections/endConnection.ts"
import { openConnection } from "../connections/openConnection.ts"
import { Prefix, Secrets } from "../ports/Secrets.ts"
import { CodeStore } from "../ports/Stores.ts"
import { Transactor } from "../ports/Transactor.ts"

/** RFC 7636 §4.1: code_verifier = 43*128unreserved. */
export const isWellFormedVerifier = (verifier: string): boolean => /^[A-Za-z0-9\-._~]{43,128}$/.test(verifier)

export interface ExchangeAttempt {
  readonly code: string
  /** The client authenticated by the token endpoint. */
  readonly client: Client
  readonly redirectUri: string | null
  readonly codeVerifier: string
  /** The surface named by `resource`, null when omitted. */
  readonly surface: Surface | null
}

export const exchangeCode = Effect.fn("codes.exchangeCode")(
  function* (attempt: ExchangeAttempt) {
    if (!isWellFormedVerifier(attempt.codeVerifier)) return yield* new VerifierMalformed()
    const secrets = yield* Secrets
    const codes = yield* CodeStore
    const codeHash = yield* secrets.hash(attempt.code)
    // RFC 7636 §4.6: BASE64URL(SHA-256(ASCII(code_verifier))), the same digest the Secrets port stores secrets by.
    const verifierChallenge = yield* secrets.hash(attempt.codeVerifier)
    const connectionId = yield* secrets.generate(Prefix.connection)
    const spend = Effect.gen(function* () {
      const found = yield* codes.findByHash(codeHash)
      if (Option.isNone(found)) return yield* new CodeNotFound()
      const decision = transitionCode(found.value, {
        _tag: "Exchange", clientId: attempt.client.clientId, redirectUri: attempt.redirectUri, verifierChallenge,
        surface: attempt.surface, connectionId
      }, yield* Clock.currentTimeMillis)
      if (decision._tag === "Refused") {
        if (decision.next !== null) yield* codes.save(decision.next)
        // A reuse moves the code's version on, so that an exchange still opening its connection sees it (below);
        // a lost race here means another reuse already moved it, which is all that is needed.
        else if (decision.error._tag === "CodeReused")
          yield* codes.save({ ...found.value, version: found.value.version + 1 }).pipe(Effect.catchTag("Conflict", () => Effect.void))
        // What a refusal saved (a counted attempt, checklist decision 43; a reuse) must stay: answered as a value,
        // failed only once the transaction has committed.
        return { _tag: "Refused", error: decision.error } as const
      }
      // Read before spending: a Directory outage refuses (503) with the code still unspent.
      const recipients = yield* connectionMailRecipients(decision.next.workspaceId, decision.next.userId)
      yield* codes.save(decision.next)
      return { _tag: "Spent", code: { ...decision.next, connectionId }, recipients } as const
    }).pipe(Effect.retry({ while: (error) => error._tag === "Conflict", times: 3 }))
    const outcome = yield* (yield* Transactor).atomically(Effect.gen(function* () {
      const spent = yield* spend
      if (spent._tag === "Refused") {
        // RFC 6749 §4.1.2: a second exchange is refused and the connection made by the first one ends.
        const reused = spent.error
        if (reused._tag === "CodeReused" && reused.connectionId !== null)
          yield* endConnection(reused.connectionId, "code_reused", null).pipe(Effect.catchTag("ConnectionNotFound", () => Effect.void))
        return spent
      }
      const opened = yield* openConnection({ code: spent.code, client: attempt.client, recipients: spent.recipients })
      return { _tag: "Opened", opened, version: spent.code.version } as const
    }))
    if (outcome._tag === "Refused") return yield* outcome.error
    const { opened } = outcome
    // A second exchange, or the app's removal, may have happened while the connection was being opened: its
    // endConnection found nothing to end yet. Re-read after committing, so that one side always sees the other.
    const after = yield* codes.findByHash(codeHash)
    const removed = Option.isNone(yield* findClientForToken(attempt.client.clientId))
    if (removed || Option.isNone(after) || after.value.version !== outcome.version)
      yield* endConnection(connectionId, removed ? "app_removed" : "code_reused", null)
    return opened
  }
)
