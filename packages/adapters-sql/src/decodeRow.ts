// Rows come back in the core's shapes only through the core's Schema records: snake_case columns become
// camelCase fields, int8 (bigint from sql-pg, number from PGlite) becomes number, and a row that does not decode
// (unknown enum value, wrong-shaped JSON) fails with StoreUnavailable naming its table and row, never a defect.
import { StoreUnavailable } from "@adgate/core"
import { Cause, Effect, Exit, Option, Schema } from "effect"

// Column names are few and repeat on every row: each is converted once (a regex per column per row was ~3 % of the
// server's CPU on a refresh, bench/README.md).
const camelNames = new Map<string, string>()
const camel = (column: string) => {
  let name = camelNames.get(column)
  if (name === undefined) {
    name = column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())
    if (camelNames.size < 10_000) camelNames.set(column, name)
  }
  return name
}

const normalise = (row: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [column, value] of Object.entries(row)) out[camel(column)] = typeof value === "bigint" ? Number(value) : value
  return out
}

export interface RowSource {
  /** The port method answering, e.g. "CodeStore.findByHash". */
  readonly operation: string
  readonly table: string
  /** The column holding the row's key, for the message. */
  readonly key: string
}

/** Decodes one row into `schema`'s type, or fails StoreUnavailable("<table> row <key> does not decode: …"). */
export const decodeRow = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S, source: RowSource) => {
  // Synchronous (an Exit, no fiber of its own): a decode per row read was ~5 % of a token request's CPU as an Effect.
  const decode = Schema.decodeUnknownExit(schema)
  return (row: Record<string, unknown>): Effect.Effect<S["Type"], StoreUnavailable> => {
    const decoded = decode(normalise(row), { errors: "all" })
    if (Exit.isSuccess(decoded)) return Effect.succeed(decoded.value)
    const error = Cause.squash(decoded.cause)
    return Effect.fail(new StoreUnavailable({
      operation: source.operation,
      message: `${source.table} row ${JSON.stringify(String(row[source.key]))} does not decode: ${error instanceof Error ? error.message : String(error)}`
    }))
  }
}

/** Decodes the first row when there is one (a look-up by key): none when the query found nothing. */
export const decodeFirstRow = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S, source: RowSource) => {
  const one = decodeRow(schema, source)
  return (rows: ReadonlyArray<Record<string, unknown>>): Effect.Effect<Option.Option<S["Type"]>, StoreUnavailable> =>
    rows[0] === undefined ? Effect.succeedNone : Effect.asSome(one(rows[0]))
}

/** Decodes every row, failing on the first that does not decode. */
export const decodeRows = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S, source: RowSource) => {
  const one = decodeRow(schema, source)
  return (rows: ReadonlyArray<Record<string, unknown>>) => Effect.forEach(rows, one)
}
