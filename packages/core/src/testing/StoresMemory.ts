// In-memory implementations of the storage ports, exported for tests and for embedding. They pass the same
// contract suite as the SQL stores (packages/contract-kit).
import { Effect, Layer, Option, Ref, Semaphore } from "effect"
import type { AuditEntry, MailId, MailMessage } from "../audit/AuditEntry.ts"
import type { AccessToken, ApiKey } from "../credentials/records.ts"
import { AuditLog } from "../ports/AuditLog.ts"
import { entriesOfPage } from "../ports/Page.ts"
import { Mailer } from "../ports/Mailer.ts"
import { PeopleStore } from "../ports/PeopleStore.ts"
import { RateLimiter, rateWindow } from "../ports/RateLimiter.ts"
import type { Session } from "../people/records.ts"
import { AccessTokenStore } from "../ports/AccessTokenStore.ts"
import { ApiKeyStore } from "../ports/ApiKeyStore.ts"
import { ClientStore } from "../ports/ClientStore.ts"
import { CodeStore } from "../ports/CodeStore.ts"
import { ConnectionStore } from "../ports/ConnectionStore.ts"
import { ConsentStore } from "../ports/ConsentStore.ts"
import { Transactor } from "../ports/Transactor.ts"
import { makeVersionedTable } from "./versioned.ts"
import { Conflict } from "../ports/errors.ts"
import { isMailDue } from "../mail/transitionMail.ts"
import { EventOutboxMemory, memoryOutboxReaders } from "./EventOutboxMemory.ts"
import type { Client } from "../clients/Client.ts"
import type { ConsentPage } from "../authorize/ConsentPage.ts"
import type { AuthorizationCode } from "../codes/AuthorizationCode.ts"
import type { Connection } from "../connections/Connection.ts"

export const ClientStoreMemory = Layer.effect(ClientStore, Effect.gen(function* () {
  const table = yield* makeVersionedTable<Client>("client")
  return ClientStore.of({
    insert: (client) => table.insert(client.clientId, client),
    find: table.find,
    findMany: (clientIds) => Effect.map(table.all, (all) => all.filter((c) => clientIds.includes(c.clientId))),
    save: (next) => table.save(next.clientId, next),
    listByWorkspace: (workspaceId) => Effect.map(table.all, (all) => all.filter((c) => c.workspaceId === workspaceId)),
    // Counted and inserted in one Ref.modify, as the SQL store does under its per-workspace lock.
    insertWorkspaceApp: (client, limit) =>
      Ref.modify(table.ref, (m): readonly [boolean, ReadonlyMap<string, Client>] => {
        const active = [...m.values()].filter((c) => c.workspaceId === client.workspaceId && c.kind === "workspace_app" && c.removedAt === null)
        return active.length >= limit ? [false, m] : [true, new Map(m).set(client.clientId, client)]
      }),
    countDynamicSince: (since) =>
      Effect.map(table.all, (all) => all.filter((c) => c.kind === "dynamic" && c.createdAt >= since).length),
    noteTokenIssued: (clientId, at, staleBefore) =>
      Ref.modify(table.ref, (m): readonly [boolean, ReadonlyMap<string, Client>] => {
        const stored = m.get(clientId)
        if (stored === undefined || (stored.lastTokenAt !== null && stored.lastTokenAt >= staleBefore)) return [false, m]
        return [true, new Map(m).set(clientId, { ...stored, lastTokenAt: at, version: stored.version + 1 })]
      })
  })
}))

export const ConsentStoreMemory = Layer.effect(ConsentStore, Effect.gen(function* () {
  const table = yield* makeVersionedTable<ConsentPage>("consent_page")
  return ConsentStore.of({
    insert: (page) => table.insert(page.id, page),
    find: table.find,
    save: (next) => table.save(next.id, next)
  })
}))

export const CodeStoreMemory = Layer.effect(CodeStore, Effect.gen(function* () {
  const table = yield* makeVersionedTable<AuthorizationCode>("authorization_code")
  return CodeStore.of({
    insert: (code) => table.insert(code.hash, code),
    findByHash: table.find,
    save: (next) => table.save(next.hash, next),
    challengeSeen: (clientId, codeChallenge) =>
      Effect.map(table.all, (all) => all.some((c) => c.clientId === clientId && c.codeChallenge === codeChallenge))
  })
}))

export const ConnectionStoreMemory = Layer.effect(ConnectionStore, Effect.gen(function* () {
  const table = yield* makeVersionedTable<Connection>("connection")
  // Every refresh token hash ever issued → its connection, so that reuse of a spent one is recognised.
  const refreshIndex = yield* Ref.make<ReadonlyMap<string, string>>(new Map())
  const index = (c: Connection) => Ref.update(refreshIndex, (m) => (m.has(c.refresh.hash) ? m : new Map(m).set(c.refresh.hash, c.id)))
  return ConnectionStore.of({
    insert: (connection) => Effect.andThen(table.insert(connection.id, connection), index(connection)),
    find: table.find,
    findByRefreshHash: (hash) =>
      Effect.flatMap(Ref.get(refreshIndex), (m) => {
        const id = m.get(hash)
        return id === undefined ? Effect.succeedNone : table.find(id)
      }),
    save: (next) => Effect.andThen(table.save(next.id, next), index(next)),
    listByWorkspace: (workspaceId) => Effect.map(table.all, (all) => all.filter((c) => c.workspaceId === workspaceId)),
    listByClient: (clientId) => Effect.map(table.all, (all) => all.filter((c) => c.clientId === clientId)),
    listExpiredActive: (now, limit) => Effect.map(table.all, (all) =>
      all.filter((c) => c.status === "active" && c.expiresAt <= now).sort((a, b) => a.expiresAt - b.expiresAt).slice(0, limit))
  })
}))

export const AccessTokenStoreMemory = Layer.effect(AccessTokenStore, Effect.gen(function* () {
  const tokens = yield* Ref.make<ReadonlyMap<string, AccessToken>>(new Map())
  return AccessTokenStore.of({
    insert: (token) => Ref.update(tokens, (m) => new Map(m).set(token.hash, token)),
    findByHash: (hash) => Effect.map(Ref.get(tokens), (m) => Option.fromNullishOr(m.get(hash))),
    revoke: (hash, at) =>
      Ref.modify(tokens, (m): readonly [boolean, ReadonlyMap<string, AccessToken>] => {
        const token = m.get(hash)
        if (token === undefined || token.revokedAt !== null) return [false, m]
        return [true, new Map(m).set(hash, { ...token, revokedAt: at })]
      })
  })
}))

export const ApiKeyStoreMemory = Layer.effect(ApiKeyStore, Effect.gen(function* () {
  const table = yield* makeVersionedTable<ApiKey>("api_key")
  return ApiKeyStore.of({
    insert: (key) => table.insert(key.id, key),
    find: table.find,
    findByHash: (hash) => Effect.map(table.all, (all) => Option.fromNullishOr(all.find((k) => k.hash === hash))),
    save: (next) => table.save(next.id, next),
    listByWorkspace: (workspaceId) => Effect.map(table.all, (all) => all.filter((k) => k.workspaceId === workspaceId))
  })
}))

export const AuditLogMemory = Layer.effect(AuditLog, Effect.gen(function* () {
  const entries = yield* Ref.make<ReadonlyArray<AuditEntry>>([])
  return AuditLog.of({
    append: (added) => Ref.update(entries, (all) => [...all, ...added]),
    list: (workspaceId) => Effect.map(Ref.get(entries), (all) => all.filter((e) => e.workspaceId === workspaceId)),
    page: (workspaceId, filter, page) => Effect.map(Ref.get(entries), (all) =>
      entriesOfPage(all.filter((e) => e.workspaceId === workspaceId &&
        (filter.app === null || e.clientId === filter.app || e.connectionId === filter.app || e.detail["apiKeyId"] === filter.app) &&
        (filter.actions === null || filter.actions.includes(e.action)))
        .reverse(), page))
  })
}))

export const MailerMemory = Layer.effect(Mailer, Effect.gen(function* () {
  // In queueing order, as the SQL outbox's position column keeps it.
  const outbox = yield* Ref.make<ReadonlyArray<MailMessage>>([])
  return Mailer.of({
    enqueue: (mails) => Ref.update(outbox, (all) => mails.reduce((queued, mail) => (queued.some((m) => m.id === mail.id) ? queued : [...queued, mail]), all)),
    pending: (limit) => Effect.map(Ref.get(outbox), (all) => all.filter((m) => m.sentAt === null).slice(0, Math.max(0, Math.floor(limit)))),
    due: (now, limit) => Effect.map(Ref.get(outbox), (all) => all.filter((m) => isMailDue(m, now)).slice(0, Math.max(0, Math.floor(limit)))),
    // Ref.modify compares and sets in one atomic step, like the SQL WHERE version = … clause.
    save: (next) =>
      Ref.modify(outbox, (all): readonly [boolean, ReadonlyArray<MailMessage>] => {
        const current = all.some((m) => m.id === next.id && m.version === next.version - 1)
        return [current, current ? all.map((m) => (m.id === next.id ? next : m)) : all]
      }).pipe(Effect.flatMap((saved) => (saved ? Effect.void : Effect.fail(new Conflict({ entity: "mail" }))))),
    saveMoves: (moved) =>
      Ref.modify(outbox, (all): readonly [ReadonlyArray<MailId>, ReadonlyArray<MailMessage>] => {
        const saved: Array<MailId> = []
        const next = all.map((m) => {
          const move = moved.find((n) => n.id === m.id && n.version === m.version + 1)
          if (move === undefined) return m
          saved.push(m.id)
          return { ...m, attempt: move.attempt, leaseUntil: move.leaseUntil, sentAt: move.sentAt, version: move.version }
        })
        return [saved, next]
      }),
    recent: (limit) => Effect.map(Ref.get(outbox), (all) => all.slice(Math.max(0, all.length - Math.max(0, Math.floor(limit)))).reverse()),
    find: (id) => Effect.map(Ref.get(outbox), (all) => Option.fromNullishOr(all.find((m) => m.id === id)))
  })
}))

export const PeopleStoreMemory = Layer.effect(PeopleStore, Effect.gen(function* () {
  const passwords = yield* Ref.make<ReadonlyMap<string, string>>(new Map())
  const sessions = yield* Ref.make<ReadonlyMap<string, Session>>(new Map())
  return PeopleStore.of({
    setPasswordHash: (userId, hash) => Ref.update(passwords, (m) => new Map(m).set(userId, hash)),
    passwordHash: (userId) => Effect.map(Ref.get(passwords), (m) => Option.fromNullishOr(m.get(userId))),
    insertSession: (session) => Ref.update(sessions, (m) => new Map(m).set(session.hash, session)),
    findSession: (hash) => Effect.map(Ref.get(sessions), (m) => Option.fromNullishOr(m.get(hash))),
    updateSession: (session) => Ref.update(sessions, (m) => new Map(m).set(session.hash, session)),
    endSessionsOf: (userId, now, except) =>
      Ref.modify(sessions, (m): readonly [number, ReadonlyMap<string, Session>] => {
        const ending = [...m.values()].filter((s) => s.userId === userId && s.revokedAt === null && s.hash !== except)
        const next = new Map(m)
        for (const s of ending) next.set(s.hash, { ...s, revokedAt: now })
        return [ending.length, next]
      })
  })
}))

export const RateLimiterMemory = Layer.effect(RateLimiter, Effect.gen(function* () {
  const windows = yield* Ref.make<ReadonlyMap<string, number>>(new Map())
  const window = (key: string, windowMs: number, now: number) => {
    const { start, retryAfterSeconds } = rateWindow(windowMs, now)
    return { slot: `${key}@${start}`, retryAfterSeconds }
  }
  return RateLimiter.of({
    hit: (key, limit, windowMs, now) => {
      const { slot, retryAfterSeconds } = window(key, windowMs, now)
      return Ref.modify(windows, (m): readonly [boolean, ReadonlyMap<string, number>] => {
        const count = m.get(slot) ?? 0
        return count >= limit ? [false, m] : [true, new Map(m).set(slot, count + 1)]
      }).pipe(Effect.map((allowed) => ({ allowed, retryAfterSeconds })))
    },
    peek: (key, limit, windowMs, now) => {
      const { slot, retryAfterSeconds } = window(key, windowMs, now)
      return Effect.map(Ref.get(windows), (m) => ({ allowed: (m.get(slot) ?? 0) < limit, retryAfterSeconds }))
    },
    peekAll: (checks, now) =>
      Effect.map(Ref.get(windows), (m) => checks.map(({ key, limit, windowMs }) => {
        const { slot, retryAfterSeconds } = window(key, windowMs, now)
        return { allowed: (m.get(slot) ?? 0) < limit, retryAfterSeconds }
      }))
  })
}))

/**
 * The Transactor of the memory stores, which cannot roll back: it runs the effect as it is, so writes made before a
 * failure inside it stay. Atomicity is a property of the SQL stores (TransactorSql) and is proven there
 * (packages/adapters-sql/test/atomicity.test.ts); over memory the services keep their order of writes and their
 * answers, which is what the core's tests check.
 */
export const TransactorMemory = Layer.effect(Transactor, Effect.sync(() => {
  // One permit per lock name, as the SQL Transactor's advisory lock (one process: the map is the whole world).
  const locks = new Map<string, Semaphore.Semaphore>()
  const lockOf = (key: string): Semaphore.Semaphore => {
    const existing = locks.get(key)
    if (existing !== undefined) return existing
    const made = Semaphore.makeUnsafe(1)
    locks.set(key, made)
    return made
  }
  return Transactor.of({
    atomically: (effect) => effect,
    exclusively: (key) => (effect) => Semaphore.withPermit(lockOf(key), effect)
  })
}))

/**
 * Every in-memory store and side-effect port the OAuth core needs, the (non-rolling-back) Transactor and an event
 * outbox for memoryOutboxReaders (a test drains them explicitly).
 */
export const CoreMemory = Layer.mergeAll(EventOutboxMemory(memoryOutboxReaders),
  ClientStoreMemory, ConsentStoreMemory, CodeStoreMemory, ConnectionStoreMemory, AccessTokenStoreMemory,
  ApiKeyStoreMemory, AuditLogMemory, MailerMemory, PeopleStoreMemory, RateLimiterMemory, TransactorMemory
)
