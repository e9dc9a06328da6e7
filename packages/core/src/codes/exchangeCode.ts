// The authorization_code grant (RFC 6749 §4.1.3, RFC 7636 §4.6, spec §POST /oauth/token): a command on the runner
// (commands/runCommand.ts): load by hash → pure transition → compare-and-set save → open the connection, issue its
// tokens and append its ConnectionOpened (the audit entry and the admins' mail come from it through the outbox
// readers), all in one transaction: a failure anywhere leaves the code unspent for a retry (docs/decisions.md
// §Atomicity). A refusal that counts an attempt commits it before answering; a reuse ends the first connection.
import { Effect, Option } from "effect"
import type { Surface } from "../scopes/Scope.ts"
import type { Client } from "../clients/Client.ts"
import { CodeNotFound, VerifierMalformed } from "./errors.ts"
import { exchangeTransition } from "./transitionCode.ts"
import { findClientForToken } from "../clients/resolveClient.ts"
import type { DomainEvent } from "../commands/DomainEvent.ts"
import { runCommand } from "../commands/runCommand.ts"
import { endConnection } from "../connections/endConnection.ts"
import { openConnection } from "../connections/openConnection.ts"
import { Prefix, Secrets } from "../ports/Secrets.ts"
import { CodeStore } from "../ports/Stores.ts"

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
    const outcome = yield* runCommand({
      load: codes.findByHash(codeHash),
      missing: () => new CodeNotFound(),
      transition: (code, now) => exchangeTransition(code, {
        _tag: "Exchange", clientId: attempt.client.clientId, redirectUri: attempt.redirectUri, verifierChallenge,
        surface: attempt.surface, connectionId
      }, now),
      save: codes.save,
      then: (spent) => Effect.map(
        openConnection({ code: { ...spent, connectionId } }),
        ({ opened, event }) => ({ answer: { opened, version: spent.version }, events: [event] })
      ),
      // Only a reuse writes beside its refusal; any other refusal opens no transaction.
      onRefused: (error, code) => error._tag !== "CodeReused" ? null : Effect.gen(function* () {
        // A reuse moves the code's version on, so that an exchange still opening its connection sees it (below); a
        // lost race here means another reuse already moved it, which is all that is needed.
        yield* codes.save({ ...code, version: code.version + 1 }).pipe(Effect.catchTag("Conflict", () => Effect.void))
        // RFC 6749 §4.1.2: a second exchange is refused and the connection made by the first one ends; its
        // ConnectionEnded is appended by endConnection's own command, in this same unit of work.
        if (error.connectionId !== null)
          yield* endConnection(error.connectionId, "code_reused", null).pipe(Effect.catchTag("ConnectionNotFound", () => Effect.void))
        return [] as ReadonlyArray<DomainEvent>
      })
    })
    // A second exchange, or the app's removal, may have happened while the connection was being opened: its
    // endConnection found nothing to end yet. Re-read after committing, so that one side always sees the other.
    const after = yield* codes.findByHash(codeHash)
    const removed = Option.isNone(yield* findClientForToken(attempt.client.clientId))
    if (removed || Option.isNone(after) || after.value.version !== outcome.version)
      yield* endConnection(connectionId, removed ? "app_removed" : "code_reused", null)
    return outcome.opened
  }
)
