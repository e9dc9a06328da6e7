// What the SQL stores add to the contract: data survives a restart (PGlite folder and PostgreSQL database), the
// migrations bring fresh and existing databases up to date, a foreign or broken row is a typed StoreUnavailable
// naming its table and row while other rows keep being served, a failing database is never a defect, and
// housekeeping purges exactly what has expired (the refresh-token hashes of ended connections among it, while reuse
// detection keeps working for the active ones).
import {
  AccessTokenStore, ApiKeyStore, AuditLog, ClientStore, CodeStore, type Connection, ConnectionStore, ConsentStore, Directory,
  GrantReader, handleTokenRequest, Mailer, PeopleStore, RateLimiter, revokeToken, Secrets, StoreUnavailable, WorkspaceId
} from "@adgate/core"
import { oauthAnswer } from "@adgate/adapters-http"
import { assert, describe, it, layer } from "@effect/vitest"
import { Clock, Effect, Layer, Option, Redacted } from "effect"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import {
  SqlDatabase, HousekeepingSchedule, migrationsTable, retention, runHousekeeping, runMigrations, SqlStores
} from "../src/index.ts"
import {
  aClient, aCode, aConnection, aConsentPage, anAccessToken, anApiKey, anAuditEntry, aMail, aSession, aUser,
  aWorkspace, t0, unique, uniqueHash
} from "@adgate/contract-kit"
import { backends, databaseUrl, freshPostgresDatabase, pgliteDatabase, statementsOf, tempDataDir } from "./databases.ts"
import { refreshGrant, seedCode, TokenWorld } from "./tokenWorld.ts"
import { clientPurgeBatch, clientPurgeStatements } from "../src/runHousekeeping.ts"

/** Writes one record to every store, closes the database, opens it again and reads everything back. */
const restartRoundTrip = (open: () => Layer.Layer<SqlClient.SqlClient, unknown>) =>
  Effect.gen(function* () {
    const stores = () => SqlStores.pipe(Layer.provideMerge(open()))
    const workspace = aWorkspace()
    const user = aUser()
    const client = aClient()
    const page = aConsentPage()
    const code = aCode()
    const connection = aConnection({ workspaceId: workspace.id })
    const token = anAccessToken()
    const key = anApiKey()
    const entry = anAuditEntry({ workspaceId: workspace.id })
    const mail = aMail()
    const session = aSession()
    const rateKey = unique("k:")
    yield* Effect.scoped(Effect.gen(function* () {
      const ctx = yield* Layer.build(stores())
      yield* Effect.gen(function* () {
        yield* (yield* Directory).createWorkspace(workspace)
        yield* (yield* Directory).createUser(user)
        yield* (yield* Directory).setRole(workspace.id, user.id, Option.some("editor"))
        yield* (yield* ClientStore).insert(client)
        yield* (yield* ConsentStore).insert(page)
        yield* (yield* CodeStore).insert(code)
        yield* (yield* ConnectionStore).insert(connection)
        yield* (yield* AccessTokenStore).insert(token)
        yield* (yield* ApiKeyStore).insert(key)
        yield* (yield* AuditLog).append([entry])
        yield* (yield* Mailer).enqueue([mail])
        yield* (yield* PeopleStore).setPasswordHash(user.id, "$argon2id$stored")
        yield* (yield* PeopleStore).insertSession(session)
        yield* (yield* RateLimiter).hit(rateKey, 1, 60_000, t0)
      }).pipe(Effect.provide(ctx))
    }))
    yield* Effect.scoped(Effect.gen(function* () {
      const ctx = yield* Layer.build(stores())
      yield* Effect.gen(function* () {
        assert.deepStrictEqual(yield* (yield* Directory).workspace(workspace.id), Option.some(workspace))
        assert.deepStrictEqual(yield* (yield* Directory).role(workspace.id, user.id), Option.some("editor" as const))
        assert.deepStrictEqual(yield* (yield* ClientStore).find(client.clientId), Option.some(client))
        assert.deepStrictEqual(yield* (yield* ConsentStore).find(page.id), Option.some(page))
        assert.deepStrictEqual(yield* (yield* CodeStore).findByHash(code.hash), Option.some(code))
        assert.deepStrictEqual(yield* (yield* ConnectionStore).findByRefreshHash(connection.refresh.hash), Option.some(connection))
        assert.deepStrictEqual(yield* (yield* AccessTokenStore).findByHash(token.hash), Option.some(token))
        assert.deepStrictEqual(yield* (yield* ApiKeyStore).findByHash(key.hash), Option.some(key))
        assert.deepStrictEqual(yield* (yield* AuditLog).list(workspace.id), [entry])
        assert.isTrue((yield* (yield* Mailer).pending(1000)).some((m) => m.id === mail.id))
        assert.deepStrictEqual(yield* (yield* PeopleStore).passwordHash(user.id), Option.some("$argon2id$stored"))
        assert.deepStrictEqual(yield* (yield* PeopleStore).findSession(session.hash), Option.some(session))
        assert.isFalse((yield* (yield* RateLimiter).hit(rateKey, 1, 60_000, t0 + 1)).allowed)
        // An existing database is already up to date: nothing runs twice.
        assert.deepStrictEqual(yield* runMigrations, [])
      }).pipe(Effect.provide(ctx))
    }))
  })

describe("restart", () => {
  it.effect("everything written before a restart of the PGlite folder reads back after it", () => {
    const dataDir = tempDataDir()
    return restartRoundTrip(() => pgliteDatabase(dataDir)).pipe(
      Effect.tap(() => Effect.sync(() => assert.isTrue(existsSync(join(dataDir, "pglite", "PG_VERSION"))))))
  }, { timeout: 60_000 })

  it.effect.skipIf(Option.isNone(databaseUrl))("everything written before a restart on PostgreSQL reads back after it", () =>
    Effect.gen(function* () {
      const url = yield* freshPostgresDatabase(Option.getOrElse(databaseUrl, () => ""))
      yield* restartRoundTrip(() => SqlDatabase({ databaseUrl: Option.some(Redacted.make(url)), dataDir: tempDataDir() }))
    }).pipe(Effect.scoped), { timeout: 60_000 })
})

/** `connection` rotated at each of `at` (as a refresh saves it: one more hash indexed each), then `last` of it saved. */
const storedWithHistory = (connection: Connection, at: ReadonlyArray<number>, last?: (c: Connection) => Connection) =>
  Effect.gen(function* () {
    const store = yield* ConnectionStore
    yield* store.insert(connection)
    const history = [connection]
    for (const time of at) {
      const head = history.at(-1)!
      const next: Connection = {
        ...head, version: head.version + 1, lastUsedAt: time,
        refresh: { hash: uniqueHash("rt-hash-"), generation: head.refresh.generation + 1, issuedAt: time },
        spent: { hash: head.refresh.hash, generation: head.refresh.generation, spentAt: time }
      }
      yield* store.save(next)
      history.push(next)
    }
    if (last !== undefined) {
      const final = last(history.at(-1)!)
      yield* store.save(final)
      history.push(final)
    }
    return history
  })

const ended = (c: Connection, at: number): Connection =>
  ({ ...c, version: c.version + 1, status: "ended", endedReason: "disconnected", endedAt: at })

for (const [name, enabled, database] of backends) describe.runIf(enabled)(name, () => {
  // The token world (the SQL stores with secrets and the issuer), so that a test can drive the token endpoint.
  layer(TokenWorld.pipe(Layer.provideMerge(database())), { timeout: "60 seconds" })(name, (it) => {
    it.effect("a fresh database comes up with every migration recorded once", () => Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ migrationId: number; name: string }>`SELECT migration_id, name FROM ${sql(migrationsTable)}`
      assert.deepStrictEqual(rows.map((r) => [r.migrationId, r.name]), [[1, "oauth"], [2, "operations"], [3, "code_challenge_index"], [4, "outbox"], [6, "pipeline"], [7, "task_runner"], [8, "connection_expiry_index"], [9, "outbox_done_index"], [10, "refresh_hash_purge"], [11, "outbox_legacy_write_queued"], [12, "client_product"], [13, "usage_by_credential_indexes"], [14, "history_pages"], [15, "budget_day_cap"], [16, "mail_claim"], [17, "credits_kept_to_six_decimals"]])
      assert.deepStrictEqual(yield* runMigrations, [])
    }))

    it.effect("a code row with an unknown status is StoreUnavailable naming table and row; other codes are served", () => Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const codes = yield* CodeStore
      const good = aCode()
      const bad = aCode()
      yield* codes.insert(good)
      yield* codes.insert(bad)
      yield* sql`UPDATE authorization_codes SET status = 'burnt' WHERE hash = ${bad.hash}`
      const error = yield* Effect.flip(codes.findByHash(bad.hash))
      assert.strictEqual(error._tag, "StoreUnavailable")
      assert.strictEqual(error.operation, "CodeStore.findByHash")
      assert.include(error.message, `authorization_codes row "${bad.hash}" does not decode`)
      assert.include(error.message, `["status"]`)
      assert.deepStrictEqual(yield* codes.findByHash(good.hash), Option.some(good))
    }))

    it.effect("a connection row with wrong-shaped JSON is StoreUnavailable, by id, by refresh hash and in lists", () => Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const connections = yield* ConnectionStore
      const workspaceId = WorkspaceId.make(unique("ws_"))
      const bad = aConnection({ workspaceId })
      const good = aConnection()
      yield* connections.insert(bad)
      yield* connections.insert(good)
      // jsonb holds only well-formed JSON, so a broken value is JSON of the wrong shape.
      yield* sql`UPDATE connections SET scopes = ${'{"not":"a list"}'}::jsonb, refresh = ${'"x"'}::jsonb WHERE id = ${bad.id}`
      const attempts: ReadonlyArray<Effect.Effect<unknown, StoreUnavailable>> =
        [connections.find(bad.id), connections.findByRefreshHash(bad.refresh.hash), connections.listByWorkspace(workspaceId)]
      for (const attempt of attempts) {
        const error = yield* Effect.flip(attempt)
        assert.strictEqual(error._tag, "StoreUnavailable")
        assert.include(error.message, `connections row "${bad.id}" does not decode`)
      }
      assert.deepStrictEqual(yield* connections.find(good.id), Option.some(good))
    }))

    it.effect("the GrantReader's reads (rows read by column) fail on a broken row with the stores' own message", () => Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const grants = yield* GrantReader
      const client = aClient()
      yield* (yield* ClientStore).insert(client)
      const bad = aConnection({ clientId: client.clientId })
      yield* (yield* ConnectionStore).insert(bad)
      yield* sql`UPDATE connections SET scopes = ${'{"not":"a list"}'}::jsonb WHERE id = ${bad.id}`
      const byStore = yield* Effect.flip((yield* ConnectionStore).findByRefreshHash(bad.refresh.hash))
      for (const read of [grants.refreshGrounds(bad.refresh.hash), grants.clientAndRefreshGrounds(client.clientId, bad.refresh.hash)] as ReadonlyArray<Effect.Effect<unknown, StoreUnavailable>>) {
        const error = yield* Effect.flip(read)
        assert.strictEqual(error._tag, "StoreUnavailable")
        assert.strictEqual(error.message, byStore.message)
      }
      const code = aCode({ clientId: client.clientId })
      yield* (yield* CodeStore).insert(code)
      yield* sql`UPDATE authorization_codes SET status = 'burnt' WHERE hash = ${code.hash}`
      const codeByStore = yield* Effect.flip((yield* CodeStore).findByHash(code.hash))
      assert.strictEqual((yield* Effect.flip(grants.clientAndCode(client.clientId, code.hash))).message, codeByStore.message)
      yield* sql`UPDATE clients SET kind = 'alien' WHERE client_id = ${client.clientId}`
      const clientByStore = yield* Effect.flip((yield* ClientStore).find(client.clientId))
      assert.strictEqual((yield* Effect.flip(grants.clientAndCode(client.clientId, uniqueHash("code_")))).message, clientByStore.message)
    }))

    it.effect("a foreign client kind and audit action are StoreUnavailable; a foreign plan is DirectoryUnavailable", () => Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const client = aClient()
      yield* (yield* ClientStore).insert(client)
      yield* sql`UPDATE clients SET kind = 'alien' WHERE client_id = ${client.clientId}`
      assert.include((yield* Effect.flip((yield* ClientStore).find(client.clientId))).message, "clients row")
      const entry = anAuditEntry()
      yield* (yield* AuditLog).append([entry])
      yield* sql`UPDATE audit_entries SET action = 'connection.teleported' WHERE id = ${entry.id}`
      assert.include((yield* Effect.flip((yield* AuditLog).list(entry.workspaceId))).message, "audit_entries row")
      const workspace = aWorkspace()
      yield* (yield* Directory).createWorkspace(workspace)
      yield* sql`UPDATE workspaces SET plan = 'platinum' WHERE id = ${workspace.id}`
      const error = yield* Effect.flip((yield* Directory).workspace(workspace.id))
      assert.strictEqual(error._tag, "DirectoryUnavailable")
      assert.include(error.message, "workspaces row")
    }))

    it.effect("a database that fails answers StoreUnavailable, never a defect, and serves again once back", () => Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const keys = yield* ApiKeyStore
      const key = anApiKey()
      yield* keys.insert(key)
      yield* sql`ALTER TABLE api_keys RENAME TO api_keys_away`
      const results = yield* Effect.all([keys.find(key.id), keys.insert(anApiKey()), keys.save({ ...key, version: 2 })].map(Effect.flip))
      yield* sql`ALTER TABLE api_keys_away RENAME TO api_keys`
      for (const error of results) assert.strictEqual(error._tag, "StoreUnavailable")
      assert.include(results[0]!.message, "api_keys")
      assert.deepStrictEqual(yield* keys.find(key.id), Option.some(key))
    }))

    it.effect("inserting a record whose key exists is StoreUnavailable and does not overwrite it", () => Effect.gen(function* () {
      const codes = yield* CodeStore
      const code = aCode()
      yield* codes.insert(code)
      const error = yield* Effect.flip(codes.insert({ ...code, status: "used" }))
      assert.strictEqual(error._tag, "StoreUnavailable")
      assert.deepStrictEqual(yield* codes.findByHash(code.hash), Option.some(code))
    }))

    it.effect("two people cannot share one e-mail address, whatever its case", () => Effect.gen(function* () {
      const directory = yield* Directory
      const user = aUser()
      yield* directory.createUser(user)
      const error = yield* Effect.flip(directory.createUser(aUser({ email: user.email.toUpperCase() })))
      assert.strictEqual(error._tag, "EmailTaken") // the unique index answers, not a store failure
    }))

    it.effect("housekeeping purges exactly what has expired, and a second pass finds nothing (spec §Lifetimes)", () => Effect.gen(function* () {
      const now = t0 + 400 * 86_400_000
      const day = 86_400_000
      yield* runHousekeeping(now) // clears rows other tests left behind
      const codes = yield* CodeStore
      const clients = yield* ClientStore
      const oldCode = aCode({ expiresAt: now - retention.codesAfterExpiry - 1 })
      const recentCode = aCode({ expiresAt: now - 1 })
      const unusedDynamic = aClient({ createdAt: now - 3 * day - 1 })
      const youngDynamic = aClient({ createdAt: now - 3 * day + 1000 })
      const usedDynamic = aClient({ createdAt: now - 10 * day, lastTokenAt: now - 10 * day })
      const staleDocument = aClient({ kind: "metadata_document", createdAt: now - 60 * day, lastTokenAt: now - 31 * day })
      const neverUsedDocument = aClient({ kind: "metadata_document", createdAt: now - 31 * day })
      const liveDocument = aClient({ kind: "metadata_document", createdAt: now - 60 * day, lastTokenAt: now - 29 * day })
      const oldApp = aClient({ kind: "workspace_app", createdAt: now - 90 * day })
      yield* Effect.forEach([oldCode, recentCode], codes.insert)
      yield* Effect.forEach([unusedDynamic, youngDynamic, usedDynamic, staleDocument, neverUsedDocument, liveDocument, oldApp], clients.insert)
      const sql = yield* SqlClient.SqlClient
      yield* sql`INSERT INTO access_tokens (hash, connection_id, generation, client_id, workspace_id, scopes, surface, issued_at, expires_at)
        VALUES ('hk-expired', 'c', 1, 'x', 'w', '[]'::jsonb, 'mcp', 0, ${now - 1}), ('hk-live', 'c', 1, 'x', 'w', '[]'::jsonb, 'mcp', 0, ${now + 1})`
      yield* sql`INSERT INTO consent_pages (id, version, request, user_id, workspace_id, csrf_hash, opened_at, expires_at, status)
        VALUES ('hk-page-old', 1, '{}'::jsonb, 'u', 'w', 'h', 0, ${now - retention.consentPagesAfterExpiry - 1}, 'open'),
               ('hk-page-new', 1, '{}'::jsonb, 'u', 'w', 'h', 0, ${now - 1}, 'open')`
      yield* sql`INSERT INTO sessions (hash, user_id, created_at, expires_at) VALUES ('hk-s-old', 'u', 0, ${now - 1}), ('hk-s-new', 'u', 0, ${now + 1})`
      yield* sql`INSERT INTO rate_limit_windows (key, window_start, window_end, count)
        VALUES ('hk', ${now - 120_000}, ${now - 60_000}, 3), ('hk', ${now - 30_000}, ${now + 30_000}, 1)`
      // Outbox rows: done a day ago (purged), done just now and not yet done (both kept).
      yield* sql`INSERT INTO event_outbox (reader, type, event, created_at, done_at)
        VALUES ('hk-old', 'X', '{}'::jsonb, 0, ${now - retention.outboxAfterDone - 1}), ('hk-recent', 'X', '{}'::jsonb, 0, ${now - 1}),
               ('hk-pending', 'X', '{}'::jsonb, 0, NULL)`
      // Refresh-token hashes: a connection ended over a day ago (its 3 purged), one ended less than a day ago and an
      // active one whose first token was spent 300 days ago (all 3 of each kept: any reuse still ends it).
      const connections = yield* ConnectionStore
      const endedLongAgo = yield* storedWithHistory(aConnection({ createdAt: now - 100 * day }), [now - 90 * day, now - 60 * day],
        (c) => ended(c, now - retention.refreshHashesAfterEnd - 1))
      const endedRecently = yield* storedWithHistory(aConnection({ createdAt: now - 100 * day }), [now - 90 * day, now - 60 * day],
        (c) => ended(c, now - retention.refreshHashesAfterEnd + 1000))
      const active = yield* storedWithHistory(aConnection({ createdAt: now - 320 * day, expiresAt: now + 45 * day }),
        [now - 300 * day, now - 1000])
      const counts = yield* runHousekeeping(now)
      assert.deepStrictEqual(counts, {
        codes: 1, accessTokens: 1, consentPages: 1, dynamicClients: 1, metadataDocumentClients: 2, sessions: 1, rateLimitWindows: 1,
        writeRequestsExpired: 0, idempotencyKeys: 0, outboxRows: 1, refreshHashes: 3
      })
      for (const [history, found] of [[endedLongAgo, false], [endedRecently, true], [active, true]] as const) {
        const last = history.at(-1)!
        for (const hash of history.map((c) => c.refresh.hash))
          assert.deepStrictEqual(yield* connections.findByRefreshHash(hash), found ? Option.some(last) : Option.none())
        // The connection itself stays as it was: only its hashes went.
        assert.deepStrictEqual(yield* connections.find(last.id), Option.some(last))
      }
      const outboxLeft = yield* sql<{ reader: string }>`SELECT reader FROM event_outbox WHERE reader LIKE 'hk-%' ORDER BY reader`
      assert.deepStrictEqual(outboxLeft.map((r) => r.reader), ["hk-pending", "hk-recent"])
      yield* sql`DELETE FROM event_outbox WHERE reader LIKE 'hk-%'`
      assert.isTrue(Option.isNone(yield* codes.findByHash(oldCode.hash)))
      assert.isTrue(Option.isSome(yield* codes.findByHash(recentCode.hash)))
      const kept = yield* Effect.forEach([unusedDynamic, youngDynamic, usedDynamic, staleDocument, neverUsedDocument, liveDocument, oldApp],
        (c) => Effect.map(clients.find(c.clientId), Option.isSome))
      assert.deepStrictEqual(kept, [false, true, true, false, false, true, true])
      assert.deepStrictEqual(yield* runHousekeeping(now), {
        codes: 0, accessTokens: 0, consentPages: 0, dynamicClients: 0, metadataDocumentClients: 0, sessions: 0, rateLimitWindows: 0,
        writeRequestsExpired: 0, idempotencyKeys: 0, outboxRows: 0, refreshHashes: 0
      })
      // A day later the recently ended connection's turn comes; the active one keeps all its hashes.
      assert.strictEqual((yield* runHousekeeping(now + day)).refreshHashes, 3)
      assert.deepStrictEqual(yield* connections.findByRefreshHash(active[0]!.refresh.hash), Option.some(active.at(-1)!))
    }))

    it.effect("housekeeping keeps a client that a connection or an unexpired code still needs, whatever lastTokenAt says", () => Effect.gen(function* () {
      const now = t0 + 500 * 86_400_000
      const day = 86_400_000
      const clients = yield* ClientStore
      const connections = yield* ConnectionStore
      // lastTokenAt is noted best effort after tokens are issued: a failed note must not cost a live connection its client.
      const connectedDynamic = aClient({ createdAt: now - 10 * day })
      const authorizingDynamic = aClient({ createdAt: now - 4 * day })
      const refreshedDocument = aClient({ kind: "metadata_document", createdAt: now - 90 * day, lastTokenAt: now - 40 * day })
      const authorizingDocument = aClient({ kind: "metadata_document", createdAt: now - 90 * day, lastTokenAt: now - 40 * day })
      const idleDocument = aClient({ kind: "metadata_document", createdAt: now - 90 * day, lastTokenAt: now - 40 * day })
      const endedDocument = aClient({ kind: "metadata_document", createdAt: now - 90 * day, lastTokenAt: now - 40 * day })
      const all = [connectedDynamic, authorizingDynamic, refreshedDocument, authorizingDocument, idleDocument, endedDocument]
      yield* Effect.forEach(all, clients.insert)
      const year = 365 * day
      yield* connections.insert(aConnection({ clientId: connectedDynamic.clientId, createdAt: now - 9 * day, expiresAt: now - 9 * day + year,
        refresh: { hash: uniqueHash("rt-hash-"), generation: 1, issuedAt: now - 9 * day } }))
      yield* connections.insert(aConnection({ clientId: refreshedDocument.clientId, createdAt: now - 80 * day, expiresAt: now - 80 * day + year,
        refresh: { hash: uniqueHash("rt-hash-"), generation: 7, issuedAt: now - 2 * day } }))
      // Connections that can never give a token again (refresh unused 30 days; ended) keep nothing alive.
      yield* connections.insert(aConnection({ clientId: idleDocument.clientId, createdAt: now - 80 * day, expiresAt: now - 80 * day + year,
        refresh: { hash: uniqueHash("rt-hash-"), generation: 3, issuedAt: now - 31 * day } }))
      yield* connections.insert(aConnection({ clientId: endedDocument.clientId, createdAt: now - 80 * day, status: "ended",
        endedReason: "disconnected", endedAt: now - 2 * day, refresh: { hash: uniqueHash("rt-hash-"), generation: 3, issuedAt: now - 2 * day } }))
      const codes = yield* CodeStore
      yield* codes.insert(aCode({ clientId: authorizingDynamic.clientId, issuedAt: now - 60_000, expiresAt: now + 540_000 }))
      yield* codes.insert(aCode({ clientId: authorizingDocument.clientId, issuedAt: now - 60_000, expiresAt: now + 540_000 }))
      yield* runHousekeeping(now)
      const kept = yield* Effect.forEach(all, (c) => Effect.map(clients.find(c.clientId), Option.isSome))
      assert.deepStrictEqual(kept, [true, true, true, true, false, false])
    }))

    it.effect("housekeeping forgets a backlog of unused registrations larger than one batch in one pass, a batch a transaction", () => Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const clients = yield* ClientStore
      const now = Date.UTC(2031, 0, 1)
      const model = aClient({ createdAt: now - 4 * 86_400_000 })
      yield* clients.insert(model)
      // Two and a half batches of copies of it: one DELETE of them all would take one parameter per client.
      const backlog = 2 * clientPurgeBatch + clientPurgeBatch / 2
      yield* sql`INSERT INTO clients SELECT (jsonb_populate_record(c, jsonb_build_object('client_id', c.client_id || '-' || i))).*
        FROM clients c, generate_series(1, ${backlog}) i WHERE c.client_id = ${model.clientId}`
      const { result: pass, texts } = yield* statementsOf(runHousekeeping(now))
      assert.isAtLeast(pass.dynamicClients, backlog + 1)
      const [left] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM clients WHERE client_id LIKE ${model.clientId + "%"}`
      assert.strictEqual(left?.n, 0)
      // The statements are seen on PGlite (statementsOf): three batches of the dynamic clients' purge, each deletion
      // naming at most a batch of clients (one parameter each).
      if (texts.length > 0) {
        const deletions = texts.filter((t) => t.startsWith('WITH d AS (DELETE FROM clients c WHERE "c"."client_id" IN') && t.includes("c.kind = 'dynamic'"))
        assert.strictEqual(deletions.length, 3)
        for (const d of deletions) assert.isAtMost(d.split("c.kind")[0]!.match(/\$\d+/g)?.length ?? 0, clientPurgeBatch)
      }
    }))

    it.effect("the client purges are planned as a probe of connections_by_client per candidate, even when statistics say one client holds every connection", () => Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const clients = yield* ClientStore
      const day = 86_400_000
      const now = t0 + 600 * day
      // A popular client holding 3000 connections, and statistics in which every connection has its client_id (as in
      // a deployment whose connections all come from one host), with one candidate of each purge.
      const popular = aClient({ kind: "metadata_document", createdAt: now - 90 * day, lastTokenAt: now - 60_000 })
      yield* Effect.forEach([popular, aClient({ createdAt: now - 4 * day }),
        aClient({ kind: "metadata_document", createdAt: now - 90 * day, lastTokenAt: now - 40 * day })], clients.insert)
      const model = aConnection({ clientId: popular.clientId, createdAt: now - day, expiresAt: now + 300 * day,
        refresh: { hash: uniqueHash("rt-hash-"), generation: 1, issuedAt: now - day } })
      yield* (yield* ConnectionStore).insert(model)
      yield* sql`INSERT INTO connections SELECT (jsonb_populate_record(c, jsonb_build_object('id', 'hk-plan-' || i))).*
        FROM connections c, generate_series(1, 3000) i WHERE c.id = ${model.id}`
      yield* sql`ALTER TABLE connections ALTER COLUMN client_id SET (n_distinct = 1)`
      yield* sql`ANALYZE connections`
      const statements = clientPurgeStatements(sql, now)
      const purges = [statements.dynamicClients, statements.metadataDocumentClients]
      const candidateIds = [popular.clientId, "apc_absent"]
      const plans = yield* Effect.forEach(purges.flatMap((p) => [p.candidates, p.remove(candidateIds)]), (statement) =>
        Effect.map(sql<Record<string, string>>`EXPLAIN ${statement}`, (rows) => rows.map((r) => Object.values(r)[0]).join("\n")))
      yield* sql`DELETE FROM connections WHERE id LIKE 'hk-plan-%'`
      yield* sql`ALTER TABLE connections ALTER COLUMN client_id RESET (n_distinct)`
      yield* sql`ANALYZE connections`
      for (const plan of plans) {
        assert.include(plan, "Scan using connections_by_client on connections", plan)
        assert.notInclude(plan, "Seq Scan on connections", plan)
      }
    }))

    it.effect("after housekeeping a spent refresh token still ends its active connection, however old; once ended, its tokens get the same answers without their hashes", () => Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const secrets = yield* Secrets
      const connections = yield* ConnectionStore
      const { clientId, grant } = yield* seedCode
      const refresh = (token: string) => handleTokenRequest({ params: refreshGrant(clientId, token), basic: null })
      const refused = (token: string) => Effect.map(Effect.flip(refresh(token)), oauthAnswer)
      const revoke = (token: string) => revokeToken({ params: [["token", token], ["client_id", clientId]], basic: null })
      const pass = Effect.flatMap(Clock.currentTimeMillis, runHousekeeping)
      const hashRows = (id: string) =>
        Effect.map(sql<{ n: number }>`SELECT count(*)::int AS n FROM connection_refresh_tokens WHERE connection_id = ${id}`, (r) => r[0]!.n)
      // Refreshed every 20 days, so that the live token never goes 30 days unused: the first token is spent 60 days
      // before it comes back, twice a refresh token's idle lifetime.
      const tokens = [(yield* handleTokenRequest({ params: grant(), basic: null })).refresh_token]
      for (let i = 0; i < 3; i++) {
        yield* TestClock.adjust("20 days")
        tokens.push((yield* refresh(tokens.at(-1)!)).refresh_token)
        yield* pass
      }
      const id = Option.getOrThrow(yield* connections.findByRefreshHash(yield* secrets.hash(tokens[0]!))).id
      assert.strictEqual(yield* hashRows(id), 4)
      // The 30-second rule still holds after a pass: the token just spent, presented again, gets a fresh pair.
      tokens.push((yield* refresh(tokens.at(-1)!)).refresh_token)
      yield* pass
      yield* TestClock.adjust("10 seconds")
      tokens.push((yield* refresh(tokens.at(-2)!)).refresh_token)
      assert.strictEqual(yield* hashRows(id), 6)
      // The first token, spent 60 days ago, is reuse: invalid_grant, and the connection ends (RFC 9700 §4.14.2).
      yield* TestClock.adjust("31 seconds")
      const reused = yield* refused(tokens[0]!)
      assert.strictEqual(reused.error, "invalid_grant")
      const endedConnection = Option.getOrThrow(yield* connections.find(id))
      assert.deepStrictEqual([endedConnection.status, endedConnection.endedReason], ["ended", "refresh_reused"])
      // Every token of the ended connection, live, spent or withdrawn, before and after its hashes are purged: the
      // same answer, and revoking one is {} and changes nothing.
      const before = yield* Effect.forEach(tokens, refused)
      assert.isTrue(before.every((answer) => answer.error === "invalid_grant"))
      // Up to a day after the ending, passes keep them (the first also purges whatever else was due, so that the count
      // below is this connection's alone); after that, the next pass deletes all 6, and the one after finds nothing.
      yield* pass
      yield* TestClock.adjust("1 day")
      assert.strictEqual((yield* pass).refreshHashes, 0)
      assert.strictEqual(yield* hashRows(id), 6)
      yield* TestClock.adjust("1 millis")
      assert.strictEqual((yield* pass).refreshHashes, 6)
      assert.strictEqual((yield* pass).refreshHashes, 0)
      assert.strictEqual(yield* hashRows(id), 0)
      assert.deepStrictEqual(yield* Effect.forEach(tokens, refused), before)
      for (const token of tokens) assert.deepStrictEqual(yield* revoke(token), {})
      assert.deepStrictEqual(yield* connections.find(id), Option.some(endedConnection))
    }))

    it.effect("HousekeepingSchedule runs a pass every minute in the background", () => Effect.gen(function* () {
      yield* Layer.build(HousekeepingSchedule)
      const sessions = yield* PeopleStore
      const session = aSession({ createdAt: 0, expiresAt: (yield* Clock.currentTimeMillis) + 30_000 })
      yield* sessions.insertSession(session)
      // Passes run on their own fiber against a real database, so the first pass (at start) may still be running
      // when the clock moves: move it a minute at a time, giving each pass real time to reach the database (a busy
      // machine may take a while), until a pass has removed the session.
      let found = yield* sessions.findSession(session.hash)
      for (let minutes = 0; minutes < 100 && Option.isSome(found); minutes++) {
        yield* TestClock.adjust("1 minute")
        yield* Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 50)))
        found = yield* sessions.findSession(session.hash)
      }
      assert.isTrue(Option.isNone(found))
    }))
  })
})
