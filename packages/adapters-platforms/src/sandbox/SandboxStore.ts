// The sandbox platforms' persistent state (docs/platforms.md): accounts, objects (campaigns, ad sets, products, site
// tags…) and daily metrics in the database, through effect/sql so it runs on PostgreSQL and PGlite alike. Metrics
// are generated deterministically (a seeded PRNG per workspace, object and day) up to yesterday, on seeding and
// again on each read after a day has passed, from each object's status and budget at that time.
import { Clock, Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql"

export interface SandboxAccount {
  readonly id: string
  readonly name: string
  readonly status: string
  readonly currency: string
  readonly timeZone: string
}

export interface SandboxObject {
  readonly id: string
  readonly accountId: string
  readonly type: string
  readonly parentId: string | null
  readonly name: string
  readonly status: string
  /** In the account's currency units (e.g. 120.5), or null for objects without a budget. */
  readonly dailyBudget: number | null
  /** Seeded traits the daily metrics are generated from (CTR, CPC, conversion rate, order value, units per day…). */
  readonly profile: Readonly<Record<string, number>>
  readonly data: Readonly<Record<string, unknown>>
  readonly position: number
}

export interface DailyMetrics {
  readonly objectId: string
  readonly day: string
  readonly impressions: number
  readonly clicks: number
  readonly cost: number
  readonly conversions: number
  readonly conversionValue: number
  readonly sessions: number
  readonly users: number
  readonly orders: number
  readonly units: number
  readonly revenue: number
}

/** How long a history a new sandbox workspace starts with. */
export const historyDays = 120

// FNV-1a then mulberry32: a small, well-known PRNG, so the same workspace always gets the same numbers.
const hash32 = (text: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** A deterministic random source in [0, 1) for the given parts (e.g. workspace, object, day). */
export const seededRandom = (...parts: ReadonlyArray<string>): (() => number) => {
  let state = hash32(parts.join("\u0000"))
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A short deterministic hex id for traces (`fbtrace_id`, request ids) of one call. */
export const traceId = (...parts: ReadonlyArray<string>): string => {
  const next = seededRandom(...parts)
  return Array.from({ length: 11 }, () => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"[Math.floor(next() * 62)]).join("")
}

export const round2 = (n: number): number => Math.round(n * 100) / 100

export const isoDay = (millis: number): string => new Date(millis).toISOString().slice(0, 10)
export const addDays = (day: string, n: number): string => isoDay(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000)
/** 0 = Sunday … 6 = Saturday. */
export const weekday = (day: string): number => new Date(`${day}T00:00:00Z`).getUTCDay()
export const daysBetween = (from: string, to: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (let d = from; d <= to; d = addDays(d, 1)) out.push(d)
  return out
}
export const isIsoDay = (s: unknown): s is string =>
  typeof s === "string" && /^\d{4}-\d{2}-\d{2}$/.test(s) && isoDay(Date.parse(`${s}T00:00:00Z`) || 0) === s

/** Today (UTC) from Effect's Clock. */
export const today = Effect.map(Clock.currentTimeMillis, isoDay)

/** Spending follows the working week: Tuesday peaks, weekends dip. */
export const weekdayFactor = [0.8, 1.04, 1.1, 1.07, 1.03, 0.95, 0.78] as const

/** A sandbox_objects row, its columns camelCase as the client names them (adapters-sql sqlNames.ts). */
interface ObjectRow {
  readonly id: string
  readonly accountId: string
  readonly type: string
  readonly parentId: string | null
  readonly name: string
  readonly status: string
  readonly dailyBudget: number | null
  readonly profile: Record<string, number> | string
  readonly data: Record<string, unknown> | string
  readonly position: number
}

const json = <A>(value: A | string): A => (typeof value === "string" ? JSON.parse(value) as A : value)

const toObject = (row: ObjectRow): SandboxObject => ({
  id: row.id,
  accountId: row.accountId,
  type: row.type,
  parentId: row.parentId,
  name: row.name,
  status: row.status,
  dailyBudget: row.dailyBudget === null ? null : Number(row.dailyBudget),
  profile: json(row.profile),
  data: json(row.data),
  position: row.position
})

export type SqlEffect<A> = Effect.Effect<A, SqlError.SqlError, SqlClient.SqlClient>

// The store's functions, given the workspace and family: sandboxStore is made per platform call, these once.
const storeAccounts = Effect.fnUntraced(function* (workspaceId: string, family: string) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ id: string; name: string; status: string; currency: string; timeZone: string }>`
      SELECT id, name, status, currency, time_zone FROM sandbox_accounts
      WHERE workspace_id = ${workspaceId} AND family = ${family} ORDER BY id`
  return rows.map((r): SandboxAccount => ({ id: r.id, name: r.name, status: r.status, currency: r.currency, timeZone: r.timeZone }))
})

const storeAccount = Effect.fnUntraced(function* (workspaceId: string, family: string, accountId: string) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ id: string; name: string; status: string; currency: string; timeZone: string }>`
      SELECT id, name, status, currency, time_zone FROM sandbox_accounts
      WHERE workspace_id = ${workspaceId} AND family = ${family} AND id = ${accountId}`
  const r = rows[0]
  return r === undefined ? undefined : { id: r.id, name: r.name, status: r.status, currency: r.currency, timeZone: r.timeZone }
})

const storeAccountObjects = Effect.fnUntraced(function* (workspaceId: string, family: string, accountId: string, type: string) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{
    aId: string; aName: string; aStatus: string; currency: string; timeZone: string
  } & { [K in keyof ObjectRow]: ObjectRow[K] | null }>`SELECT a.id AS a_id, a.name AS a_name, a.status AS a_status, a.currency, a.time_zone,
          o.id, o.account_id, o.type, o.parent_id, o.name, o.status, o.daily_budget, o.profile, o.data, o.position
        FROM sandbox_accounts a LEFT JOIN sandbox_objects o ON o.workspace_id = a.workspace_id AND o.family = a.family
          AND o.account_id = a.id AND o.type = ${type}
        WHERE a.workspace_id = ${workspaceId} AND a.family = ${family} AND a.id = ${accountId}
        ORDER BY o.position, o.id`
  const first = rows[0]
  if (first === undefined) return { account: undefined, objects: [] }
  const account: SandboxAccount = { id: first.aId, name: first.aName, status: first.aStatus, currency: first.currency, timeZone: first.timeZone }
  return { account, objects: rows.flatMap((r) => (r.id === null ? [] : [toObject(r as ObjectRow)])) }
})

const storeObjects = Effect.fnUntraced(function* (workspaceId: string, family: string, accountId: string, type: string) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<ObjectRow>`SELECT id, account_id, type, parent_id, name, status, daily_budget, profile, data, position
      FROM sandbox_objects WHERE workspace_id = ${workspaceId} AND family = ${family} AND account_id = ${accountId}
      AND type = ${type} ORDER BY position, id`
  return rows.map(toObject)
})

const storeAllObjects = Effect.fnUntraced(function* (workspaceId: string, family: string) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<ObjectRow>`SELECT id, account_id, type, parent_id, name, status, daily_budget, profile, data, position
      FROM sandbox_objects WHERE workspace_id = ${workspaceId} AND family = ${family} ORDER BY position, id`
  return rows.map(toObject)
})

const storeObject = Effect.fnUntraced(function* (workspaceId: string, family: string, accountId: string, type: string, id: string) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<ObjectRow>`SELECT id, account_id, type, parent_id, name, status, daily_budget, profile, data, position
      FROM sandbox_objects WHERE workspace_id = ${workspaceId} AND family = ${family} AND account_id = ${accountId}
      AND type = ${type} AND id = ${id}`
  return rows[0] === undefined ? undefined : toObject(rows[0])
})

const storeInsertAccount = Effect.fnUntraced(function* (workspaceId: string, family: string, account: SandboxAccount) {
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO sandbox_accounts (workspace_id, family, id, name, status, currency, time_zone)
      VALUES (${workspaceId}, ${family}, ${account.id}, ${account.name}, ${account.status}, ${account.currency}, ${account.timeZone})
      ON CONFLICT DO NOTHING`
})

const storeInsertObject = Effect.fnUntraced(function* (workspaceId: string, family: string, object: SandboxObject) {
  const sql = yield* SqlClient.SqlClient
  const now = yield* Clock.currentTimeMillis
  yield* sql`INSERT INTO sandbox_objects (workspace_id, family, id, account_id, type, parent_id, name, status, daily_budget,
      profile, data, position, updated_at)
      VALUES (${workspaceId}, ${family}, ${object.id}, ${object.accountId}, ${object.type}, ${object.parentId}, ${object.name},
      ${object.status}, ${object.dailyBudget}, ${JSON.stringify(object.profile)}::jsonb, ${JSON.stringify(object.data)}::jsonb,
      ${object.position}, ${now})
      ON CONFLICT DO NOTHING`
})

const storeUpdateObject = Effect.fnUntraced(function* (workspaceId: string, family: string, object: SandboxObject) {
  const sql = yield* SqlClient.SqlClient
  const now = yield* Clock.currentTimeMillis
  yield* sql`UPDATE sandbox_objects SET name = ${object.name}, status = ${object.status},
      daily_budget = ${object.dailyBudget}, data = ${JSON.stringify(object.data)}::jsonb, updated_at = ${now}
      WHERE workspace_id = ${workspaceId} AND family = ${family} AND id = ${object.id}`
})

const storeDeleteObject = Effect.fnUntraced(function* (workspaceId: string, family: string, id: string) {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DELETE FROM sandbox_objects WHERE workspace_id = ${workspaceId} AND family = ${family} AND id = ${id}`
})

const storeNextPosition = Effect.fnUntraced(function* (workspaceId: string, family: string) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ next: number }>`SELECT COALESCE(MAX(position), 0) + 1 AS next FROM sandbox_objects
      WHERE workspace_id = ${workspaceId} AND family = ${family}`
  return Number(rows[0]?.next ?? 1)
})

const storeMetrics = Effect.fnUntraced(function* (workspaceId: string, family: string, objectIds: ReadonlyArray<string> | null, from: string, to: string) {
  const sql = yield* SqlClient.SqlClient
  if (objectIds !== null && objectIds.length === 0) return []
  const rows = yield* sql<{
    objectId: string; day: string; impressions: number; clicks: number; cost: number; conversions: number
    conversionValue: number; sessions: number; users: number; orders: number; units: number; revenue: number
  }>`SELECT object_id, day, impressions, clicks, cost, conversions, conversion_value, sessions, users, orders, units, revenue
        FROM sandbox_daily_metrics WHERE workspace_id = ${workspaceId} AND family = ${family}
        AND day >= ${from} AND day <= ${to} ${objectIds === null ? sql`` : sql`AND ${sql.in("object_id", objectIds)}`}
        ORDER BY day, object_id`
  return rows.map((r): DailyMetrics => ({
    objectId: r.objectId, day: r.day, impressions: Number(r.impressions), clicks: Number(r.clicks), cost: Number(r.cost),
    conversions: Number(r.conversions), conversionValue: Number(r.conversionValue), sessions: Number(r.sessions),
    users: Number(r.users), orders: Number(r.orders), units: Number(r.units), revenue: Number(r.revenue)
  }))
})

/** The state of one family in one workspace. */
export const sandboxStore = (workspaceId: string, family: string) => ({
  accounts: storeAccounts(workspaceId, family) satisfies SqlEffect<ReadonlyArray<SandboxAccount>>,

  account: (accountId: string): SqlEffect<SandboxAccount | undefined> => storeAccount(workspaceId, family, accountId),

  /**
   * The account and its objects of one type in one statement (a list call: the account must exist, then its
   * objects): `account` undefined when there is no such account.
   */
  accountObjects: (accountId: string, type: string): SqlEffect<{ readonly account: SandboxAccount | undefined; readonly objects: ReadonlyArray<SandboxObject> }> =>
    storeAccountObjects(workspaceId, family, accountId, type),

  objects: (accountId: string, type: string): SqlEffect<ReadonlyArray<SandboxObject>> => storeObjects(workspaceId, family, accountId, type),

  allObjects: storeAllObjects(workspaceId, family) satisfies SqlEffect<ReadonlyArray<SandboxObject>>,

  object: (accountId: string, type: string, id: string): SqlEffect<SandboxObject | undefined> => storeObject(workspaceId, family, accountId, type, id),

  insertAccount: (account: SandboxAccount): SqlEffect<void> => storeInsertAccount(workspaceId, family, account),

  insertObject: (object: SandboxObject): SqlEffect<void> => storeInsertObject(workspaceId, family, object),

  /** Saves the changed fields of one object (the sandbox's own write; the platform answers from the result). */
  updateObject: (object: SandboxObject): SqlEffect<void> => storeUpdateObject(workspaceId, family, object),

  deleteObject: (id: string): SqlEffect<void> => storeDeleteObject(workspaceId, family, id),

  nextPosition: storeNextPosition(workspaceId, family) satisfies SqlEffect<number>,

  /** Daily metrics of `objectIds` (all of the family when null) between two days, inclusive. */
  metrics: (objectIds: ReadonlyArray<string> | null, from: string, to: string): SqlEffect<ReadonlyArray<DailyMetrics>> => storeMetrics(workspaceId, family, objectIds, from, to),

  /**
   * Generates the metrics of every day after the last filled one up to yesterday (today is not over yet), from
   * the objects as they are now: a paused campaign spends nothing on the days it stays paused.
   */
  fill: (
    generate: (objects: ReadonlyArray<SandboxObject>, day: string) => ReadonlyArray<DailyMetrics>,
    /** The last filled day when the caller has just read it (null: none yet); absent: read here. */
    known?: { readonly filledThrough: string | null }
  ): SqlEffect<void> => storeFill(workspaceId, family, generate, known)
})

type Generate = (objects: ReadonlyArray<SandboxObject>, day: string) => ReadonlyArray<DailyMetrics>

const storeFill = Effect.fnUntraced(function* (
  workspaceId: string, family: string, generate: Generate, known: { readonly filledThrough: string | null } | undefined
) {
  const sql = yield* SqlClient.SqlClient
  const yesterday = addDays(yield* today, -1)
  const filledThrough = known !== undefined
    ? known.filledThrough
    : (yield* sql<{ filledThrough: string }>`SELECT filled_through FROM sandbox_fills
            WHERE workspace_id = ${workspaceId} AND family = ${family}`)[0]?.filledThrough ?? null
  // A mark read a moment ago can only be behind: filling again writes the same rows (DO NOTHING), never fewer.
  const first = filledThrough === null ? addDays(yesterday, -(historyDays - 1)) : addDays(filledThrough, 1)
  if (first > yesterday) return
  // The catch-up writes are one unit of their own (a savepoint inside a write's transaction): a read runs outside
  // any transaction and must not leave half a day filled. Concurrent fills write the same rows (DO NOTHING).
  yield* sql.withTransaction(storeFillDays(sql, workspaceId, family, generate, first, yesterday))
})

const storeFillDays = Effect.fnUntraced(function* (
  sql: SqlClient.SqlClient, workspaceId: string, family: string, generate: Generate, first: string, yesterday: string
) {
  const objects = yield* sandboxStore(workspaceId, family).allObjects
  const generated = daysBetween(first, yesterday).flatMap((day) => generate(objects, day))
    .filter((m) => m.impressions + m.clicks + m.sessions + m.units + m.orders > 0)
  for (let i = 0; i < generated.length; i += 500) {
    const batch = generated.slice(i, i + 500).map((m): Record<string, unknown> => ({
      workspaceId, family, objectId: m.objectId, day: m.day, impressions: m.impressions, clicks: m.clicks,
      cost: m.cost, conversions: m.conversions, conversionValue: m.conversionValue, sessions: m.sessions, users: m.users,
      orders: m.orders, units: m.units, revenue: m.revenue
    }))
    yield* sql`INSERT INTO sandbox_daily_metrics ${sql.insert(batch as unknown as readonly [Record<string, unknown>, ...Array<Record<string, unknown>>])} ON CONFLICT DO NOTHING`
  }
  yield* sql`INSERT INTO sandbox_fills (workspace_id, family, filled_through) VALUES (${workspaceId}, ${family}, ${yesterday})
          ON CONFLICT (workspace_id, family) DO UPDATE SET filled_through = EXCLUDED.filled_through`
})

export type SandboxStore = ReturnType<typeof sandboxStore>
