// What one token request costs the database (bench/README.md §Findings): every statement the core's token
// endpoint sends for an exchange and for a refresh, counted at the PGlite driver (the statements are the ones sent
// to PostgreSQL: one compiler). A refresh writes no client row in steady state and reads each row once; the writes
// of a rotation and of an exchange are one statement each (the stores' saveWith and saveHoldingClient), with no BEGIN/COMMIT.
import { handleTokenRequest, Mailer, MailId, sendQueuedMail } from "@adgate/core"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { pgliteDatabase, statementsOf } from "./databases.ts"
import { textsWritten } from "../src/statementText.ts"
import { refreshGrant, seedCode, TokenWorld } from "./tokenWorld.ts"

/** Which statement each text is, by its opening: the lists below read as the statement log of bench/README.md. */
const kind = (text: string): string => {
  const known: ReadonlyArray<readonly [RegExp, string]> = [
    [/^SELECT \* FROM clients WHERE/, "client"],
    [/^SELECT \* FROM authorization_codes WHERE hash/, "code"],
    [/^SELECT c\.\*, m\.role AS approver_role FROM connection_refresh_tokens/, "connection with role"],
    [/^WITH live_client AS MATERIALIZED \( ?SELECT 1 FROM clients WHERE client_id = \$1 AND removed_at IS NULL FOR KEY SHARE\), spent AS \( ?UPDATE authorization_codes .* AND EXISTS \(SELECT 1 FROM live_client\) RETURNING hash\).* INSERT INTO connections .* INSERT INTO connection_refresh_tokens .* INSERT INTO access_tokens .* INSERT INTO event_outbox .* SELECT \(SELECT hash FROM spent\) AS hash, EXISTS \(SELECT 1 FROM live_client\) AS client_live$/, "client held + code CAS + connection + refresh hash + access token + events"],
    [/^WITH updated AS \( ?UPDATE connections .* INSERT INTO connection_refresh_tokens .* INSERT INTO access_tokens .* SELECT id FROM updated$/, "connection CAS + refresh hash + access token"],
    [/^SELECT cl\.client_id AS cl_client_id, .* FROM \(SELECT 1\) AS one LEFT JOIN clients cl .* LEFT JOIN \(SELECT c\.\*, m\.role AS approver_role FROM connection_refresh_tokens/, "client + connection with role"],
    [/^SELECT cl\.client_id AS cl_client_id, .* FROM \(SELECT 1\) AS one LEFT JOIN clients cl .* LEFT JOIN \(SELECT \* FROM authorization_codes WHERE hash/, "client + code"],
    [/^UPDATE clients SET last_token_at/, "token note"],
    [/^SELECT \* FROM mail_outbox WHERE sent_at IS NULL AND \(lease_until/, "due mail"],
    [/^SELECT \* FROM mail_outbox WHERE id/, "mail"],
    [/^UPDATE mail_outbox m SET .* FROM jsonb_to_recordset/, "mails CAS"]
  ]
  return known.find(([pattern]) => pattern.test(text))?.[1] ?? text
}

describe("statements per token request", () => {
  layer(TokenWorld.pipe(Layer.provideMerge(pgliteDatabase())), { timeout: "60 seconds" })("PGlite", (it) => {
    it.effect("an exchange: the client with the code in one read and one write statement holding the client (no BEGIN/COMMIT, no re-check)", () =>
      Effect.gen(function* () {
        const { grant } = yield* seedCode
        const exchange = yield* statementsOf(handleTokenRequest({ params: grant(), basic: null }))
        // The first token of a client records lastTokenAt, once (a later one within the hour does not).
        assert.deepStrictEqual(exchange.texts.map(kind), [
          "client + code", "client held + code CAS + connection + refresh hash + access token + events", "token note"
        ])
      }))

    it.effect("a refresh: the client with the connection and the role in one read, one write statement; no UPDATE of the client", () =>
      Effect.gen(function* () {
        const { clientId, grant } = yield* seedCode
        const exchange = yield* handleTokenRequest({ params: grant(), basic: null })
        const refresh = yield* statementsOf(handleTokenRequest({ params: refreshGrant(clientId, exchange.refresh_token), basic: null }))
        assert.deepStrictEqual(refresh.texts.map(kind), ["client + connection with role", "connection CAS + refresh hash + access token"])
        // A second refresh in steady state costs the same.
        const again = yield* statementsOf(handleTokenRequest({ params: refreshGrant(clientId, refresh.result.refresh_token), basic: null }))
        assert.deepStrictEqual(again.texts.map(kind), refresh.texts.map(kind))
      }))

    it.effect("mails sent: a batch's claims are one compare-and-set statement and its marks another, on the state the pass read (no read of their own)", () =>
      Effect.gen(function* () {
        const mailer = yield* Mailer
        yield* mailer.enqueue([1, 2, 3].map((i) => ({
          id: MailId.make(`mail_count_${i}`), to: `p${i}@x.test`, subject: "s", text: "t", createdAt: 0, sentAt: null, version: 0, attempt: 0, leaseUntil: null
        })))
        const pass = yield* statementsOf(sendQueuedMail(() => Effect.void))
        assert.strictEqual(pass.result, 3)
        assert.deepStrictEqual(pass.texts.map(kind), ["due mail", "mails CAS", "mails CAS"])
        assert.deepStrictEqual(yield* mailer.pending(10), [])
      }))

    it.effect("a refresh and an exchange of a shape already sent write no statement text: only their parameters are made per request", () =>
      Effect.gen(function* () {
        // One exchange and a few rotations first: each shape's text is written once per store (statementText.ts).
        // The measured refreshes then save versions no earlier request saved, so a shape key that named anything
        // of one request (a version, an id, a hash) would write a text here.
        const first = yield* seedCode
        let token = (yield* handleTokenRequest({ params: first.grant(), basic: null })).refresh_token
        for (let i = 0; i < 4; i++) token = (yield* handleTokenRequest({ params: refreshGrant(first.clientId, token), basic: null })).refresh_token
        const before = textsWritten.count
        const second = yield* seedCode
        const exchange = yield* statementsOf(handleTokenRequest({ params: second.grant(), basic: null }))
        const refresh = yield* statementsOf(handleTokenRequest({ params: refreshGrant(first.clientId, token), basic: null }))
        yield* handleTokenRequest({ params: refreshGrant(first.clientId, refresh.result.refresh_token), basic: null })
        assert.strictEqual(textsWritten.count, before)
        // The same statements as before, with this request's values as parameters, never in the text.
        assert.notInclude(exchange.texts.join(" "), exchange.result.refresh_token)
        assert.include(refresh.texts.map(kind), "connection CAS + refresh hash + access token")
      }))
  })
})
