// The host keeps adgate's OAuth and approval state in its own database (hostDatabase.ts): clients, consent pages,
// authorization codes, connections with every refresh-token hash they were issued, access tokens and write requests.
// Each store is a port of @adgate/core, written against the port's contract and proven by @adgate/contract-kit
// (test/contracts.test.ts). adgate's services then run on them unchanged (test/lifecycles.test.ts).
import {
  AccessTokenStore, type AccessToken, type AuthorizationCode, type Client, ClientStore, CodeStore, Conflict, type Connection,
  ConnectionStore, type ConsentPage, ConsentStore, isDueToExpire, outcomeOfWriteRequest, StoreUnavailable, Transactor,
  type WriteRequest, type WriteRequestId, WriteRequestStore
} from "@adgate/core"
import { Effect, Layer, Option, Semaphore } from "effect"
import { Index, Table, type Versioned } from "./hostDatabase.ts"

/** One database call as an Effect: a failing database is StoreUnavailable, which adgate answers 503 (fail closed). */
const call = <A>(operation: string, run: () => Promise<A>) =>
  Effect.tryPromise({ try: run, catch: (error) => new StoreUnavailable({ operation, message: String(error) }) })

/** A compare-and-set update: Conflict when the row moved on (or is missing), as every port's `save` promises. */
const compareAndSet = <Row extends Versioned>(table: Table<Row>, entity: string, key: string, next: Row) =>
  Effect.flatMap(call(`${entity}.save`, () => table.update(key, next)), (saved) => (saved ? Effect.void : Effect.fail(new Conflict({ entity }))))

const found = <A>(row: A | undefined) => Option.fromNullishOr(row)

/** The host's tables; one per test file or process. */
export const makeHostDatabase = () => ({
  clients: new Table<Client>(),
  consentPages: new Table<ConsentPage>(),
  codes: new Table<AuthorizationCode>(),
  connections: new Table<Connection>(),
  refreshHashes: new Index(),
  accessTokens: new Table<AccessToken & Versioned>(),
  writeRequests: new Table<WriteRequest>()
})
export type HostDatabase = ReturnType<typeof makeHostDatabase>

export const hostClientStore = (db: HostDatabase) => Layer.succeed(ClientStore, ClientStore.of({
  insert: (client) => call("client.insert", () => db.clients.insert(client.clientId, client)),
  find: (clientId) => Effect.map(call("client.find", () => db.clients.get(clientId)), found),
  findMany: (clientIds) => call("client.findMany", () => db.clients.select((c) => clientIds.includes(c.clientId))),
  save: (next) => compareAndSet(db.clients, "client", next.clientId, next),
  listByWorkspace: (workspaceId) => call("client.list", () => db.clients.select((c) => c.workspaceId === workspaceId)),
  insertWorkspaceApp: (client, limit) => call("client.insertWorkspaceApp", () => db.clients.insertIf(client.clientId, client, (all) =>
    all.filter((c) => c.workspaceId === client.workspaceId && c.kind === "workspace_app" && c.removedAt === null).length < limit)),
  countDynamicSince: (since) => Effect.map(call("client.count", () => db.clients.select((c) => c.kind === "dynamic" && c.createdAt >= since)), (all) => all.length),
  noteTokenIssued: (clientId, at, staleBefore) => call("client.noteTokenIssued", () => db.clients.modify(clientId, (c) =>
    c === undefined || (c.lastTokenAt !== null && c.lastTokenAt >= staleBefore)
      ? [false, undefined]
      : [true, { ...c, lastTokenAt: at, version: c.version + 1 }]))
}))

export const hostConsentStore = (db: HostDatabase) => Layer.succeed(ConsentStore, ConsentStore.of({
  insert: (page) => call("consent.insert", () => db.consentPages.insert(page.id, page)),
  find: (id) => Effect.map(call("consent.find", () => db.consentPages.get(id)), found),
  save: (next) => compareAndSet(db.consentPages, "consent_page", next.id, next)
}))

export const hostCodeStore = (db: HostDatabase) => Layer.succeed(CodeStore, CodeStore.of({
  insert: (code) => call("code.insert", () => db.codes.insert(code.hash, code)),
  findByHash: (hash) => Effect.map(call("code.find", () => db.codes.get(hash)), found),
  save: (next) => compareAndSet(db.codes, "authorization_code", next.hash, next),
  challengeSeen: (clientId, challenge) =>
    Effect.map(call("code.challengeSeen", () => db.codes.select((c) => c.clientId === clientId && c.codeChallenge === challenge)), (all) => all.length > 0)
}))

export const hostConnectionStore = (db: HostDatabase) => Layer.succeed(ConnectionStore, ConnectionStore.of({
  // The refresh hash is indexed after the row is written: every hash ever issued finds its connection (reuse detection).
  insert: (connection) => call("connection.insert", async () => {
    await db.connections.insert(connection.id, connection)
    await db.refreshHashes.add(connection.refresh.hash, connection.id)
  }),
  find: (id) => Effect.map(call("connection.find", () => db.connections.get(id)), found),
  findByRefreshHash: (hash) => Effect.map(call("connection.findByRefreshHash", async () => {
    const id = await db.refreshHashes.get(hash)
    return id === undefined ? undefined : db.connections.get(id)
  }), found),
  // Only the save that won indexes its new refresh hash: a racer that lost never makes its token findable.
  save: (next) => Effect.andThen(compareAndSet(db.connections, "connection", next.id, next),
    call("connection.index", () => db.refreshHashes.add(next.refresh.hash, next.id))),
  listByWorkspace: (workspaceId) => call("connection.list", () => db.connections.select((c) => c.workspaceId === workspaceId)),
  listByClient: (clientId) => call("connection.list", () => db.connections.select((c) => c.clientId === clientId)),
  listExpiredActive: (now, limit) => Effect.map(call("connection.listExpired", () => db.connections.select((c) => c.status === "active" && c.expiresAt <= now)),
    (due) => [...due].sort((a, b) => a.expiresAt - b.expiresAt).slice(0, limit))
}))

export const hostAccessTokenStore = (db: HostDatabase) => Layer.succeed(AccessTokenStore, AccessTokenStore.of({
  insert: (token) => call("access_token.insert", () => db.accessTokens.insert(token.hash, { ...token, version: 1 })),
  findByHash: (hash) => Effect.map(call("access_token.find", () => db.accessTokens.get(hash)),
    (row) => found(row === undefined ? undefined : (({ version: _, ...token }) => token)(row))),
  revoke: (hash, at) => call("access_token.revoke", () => db.accessTokens.modify(hash, (t) =>
    t === undefined || t.revokedAt !== null ? [false, undefined] : [true, { ...t, revokedAt: at, version: t.version + 1 }]))
}))

const newestFirst = (at: (r: WriteRequest) => number) => (a: WriteRequest, b: WriteRequest) => at(b) - at(a) || (a.id < b.id ? 1 : -1)

export const hostWriteRequestStore = (db: HostDatabase) => Layer.succeed(WriteRequestStore, WriteRequestStore.of({
  insert: (request) => call("write_request.insert", () => db.writeRequests.insert(request.id, request)),
  find: (id) => Effect.map(call("write_request.find", () => db.writeRequests.get(id)), found),
  save: (next) => compareAndSet(db.writeRequests, "write_request", next.id, next),
  listByRequester: (workspaceId, requester, before, limit) => Effect.map(call("write_request.list", () => db.writeRequests.select((r) =>
    r.workspaceId === workspaceId &&
    (requester.connectionId !== null ? r.connectionId === requester.connectionId : r.apiKeyId === requester.apiKeyId) &&
    (before === null || r.createdAt < before.createdAt || (r.createdAt === before.createdAt && r.id < before.id)))),
  (rows) => [...rows].sort(newestFirst((r) => r.createdAt)).slice(0, Math.max(0, limit))),
  listPending: (workspaceId) => Effect.map(call("write_request.list", () => db.writeRequests.select((r) => r.workspaceId === workspaceId && r.status === "pending_approval")),
    (rows) => [...rows].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))),
  listDecided: (workspaceId, outcome, page) => Effect.map(call("write_request.list", () => db.writeRequests.select((r) => {
    const of = outcomeOfWriteRequest(r)
    return r.workspaceId === workspaceId && of !== null && (outcome === null || of === outcome)
  })), (rows) => {
    // The page as whole numbers of 0 or more, as every store applies it.
    const offset = Math.max(0, Math.floor(page.offset))
    return [...rows].sort(newestFirst((r) => r.updatedAt)).slice(offset, offset + Math.max(0, Math.floor(page.limit)))
  }),
  // Each due request is moved by compare-and-set, so of many housekeeping passes at once each expires it once.
  expireDue: (now) => call("write_request.expire", async () => {
    const expired: Array<WriteRequestId> = []
    for (const r of await db.writeRequests.select((r) => isDueToExpire(r, now)))
      if (await db.writeRequests.update(r.id, { ...r, status: "expired", version: r.version + 1, updatedAt: now })) expired.push(r.id)
    return expired
  }),
  listResumable: (now, decidedBefore, limit) => Effect.map(call("write_request.list", () => db.writeRequests.select((r) =>
    r.status === "approved" && (r.leaseUntil === null ? (r.decidedAt ?? 0) <= decidedBefore : r.leaseUntil <= now))),
  (rows) => [...rows].sort((a, b) => (a.decidedAt ?? 0) - (b.decidedAt ?? 0) || (a.id < b.id ? -1 : 1)).slice(0, Math.max(0, limit)))
}))

/**
 * The host's units of work. This in-memory database cannot roll back, so `atomically` runs the effect as it is (a
 * host on SQL runs it in a transaction); `exclusively` holds a lock per name, which is what keeps a workspace's
 * changes-per-day and spend caps exact under concurrency.
 */
export const hostTransactor = Layer.sync(Transactor, () => {
  const locks = new Map<string, Semaphore.Semaphore>()
  const lockOf = (key: string) => {
    let lock = locks.get(key)
    if (lock === undefined) locks.set(key, lock = Semaphore.makeUnsafe(1))
    return lock
  }
  return Transactor.of({ atomically: (effect) => effect, exclusively: (key) => (effect) => Semaphore.withPermit(lockOf(key), effect) })
})

/** Every store the host keeps, on one database. */
export const hostStores = (db: HostDatabase) => Layer.mergeAll(
  hostClientStore(db), hostConsentStore(db), hostCodeStore(db), hostConnectionStore(db), hostAccessTokenStore(db),
  hostWriteRequestStore(db), hostTransactor
)
