// Rows come back in the core's shapes only through the core's Schema records: the client has already named the
// columns as the records' fields (sqlNames), int8 (bigint from the drivers) becomes number, and a row that does not decode
// (unknown enum value, wrong-shaped JSON) fails with StoreUnavailable naming its table and row, never a defect.
import { StoreUnavailable } from "@adgate/core"
import { Cause, Effect, Exit, Option, Schema } from "effect"
import { mismatch, plainColumnDecoder, plainDecoder } from "./plainCodec.ts"
import { sqlNames, transformRows } from "./sqlNames.ts"

// int8 is the only column type both drivers return in another shape than the records hold (bigint, for a number):
// a row is copied only when it has one.
const normalise = (row: Record<string, unknown>): Record<string, unknown> => {
  let out: Record<string, unknown> | undefined
  for (const column in row) {
    const value = row[column]
    if (typeof value === "bigint") {
      out ??= { ...row }
      out[column] = Number(value)
    }
  }
  return out ?? row
}

export interface RowSource {
  /** The port method answering, e.g. "CodeStore.findByHash". */
  readonly operation: string
  readonly table: string
  /** The column holding the row's key, for the message (its field name, or its snake_case column name). */
  readonly key: string
}

/** Decodes one row into `schema`'s type, or fails StoreUnavailable("<table> row <key> does not decode: …"). */
export const decodeRow = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S, source: RowSource) => {
  // Synchronous (an Exit, no fiber of its own): a decode per row read was ~5 % of a token request's CPU as an Effect.
  const decode = Schema.decodeUnknownExit(schema)
  // The same answer as the Schema's for every row it accepts, at a fraction of its cost (plainCodec.ts); any other
  // row goes to the Schema, whose message names what is wrong.
  const plain = plainDecoder(schema.ast)
  const key = sqlNames.transformResultNames(source.key)
  return (row: Record<string, unknown>): Effect.Effect<S["Type"], StoreUnavailable> => {
    const normalised = normalise(row)
    if (plain !== null) {
      const value = plain(normalised)
      if (value !== mismatch) return Effect.succeed(value as S["Type"])
    }
    const decoded = decode(normalised, { errors: "all" })
    if (Exit.isSuccess(decoded)) return Effect.succeed(decoded.value)
    const error = Cause.squash(decoded.cause)
    return Effect.fail(new StoreUnavailable({
      operation: source.operation,
      message: `${source.table} row ${JSON.stringify(String(row[key]))} does not decode: ${error instanceof Error ? error.message : String(error)}`
    }))
  }
}

/** A decoder of rows as the driver sends them (decodeColumns). */
export interface ColumnsDecoder<A> {
  (row: Record<string, unknown>): Effect.Effect<A, StoreUnavailable>
  /**
   * Whether rows are read field by field from their columns. False when the Schema has a node plainCodec does not
   * compile or a field whose name does not round-trip between camelCase and snake_case: every row is then renamed
   * first and decoded by decodeRow: the same answers, only slower, so nothing but this flag tells.
   */
  readonly readsByColumn: boolean
}

/**
 * Decodes one row as the driver sent it (a statement run `withoutTransform`: snake_case columns, `prefix` before each
 * in a combined read) into `schema`'s type: each field read from its column, no renamed copy of the row made first.
 * A row this does not accept is renamed as the client would have answered it (the prefixed columns only, without
 * their prefix, each to its field) and goes to decodeRow, so the value, and the failure and its message, are
 * decodeRow's.
 */
export const decodeColumns = <S extends Schema.Top & { readonly DecodingServices: never }>(
  schema: S,
  source: RowSource,
  options: { readonly prefix?: string } = {}
): ColumnsDecoder<S["Type"]> => {
  const prefix = options.prefix ?? ""
  // A field is read from the column whose name the client turns back into that field; a field whose snake_case
  // name does not come back as itself is never read by column (every row goes the renamed way).
  let everyFieldRoundTrips = true
  const column = (field: string) => {
    const name = sqlNames.transformQueryNames(field)
    if (sqlNames.transformResultNames(name) !== field) everyFieldRoundTrips = false
    return prefix + name
  }
  const compiled = plainColumnDecoder(schema.ast, column)
  const plain = everyFieldRoundTrips ? compiled : null
  const renamed = prefix === "" ? renamedRow : (row: Record<string, unknown>) => renamedRow(unprefixed(row, prefix))
  const slow = decodeRow(schema, source)
  const decode = (row: Record<string, unknown>): Effect.Effect<S["Type"], StoreUnavailable> => {
    if (plain !== null) {
      const value = plain(row)
      if (value !== mismatch) return Effect.succeed(value as S["Type"])
    }
    return slow(renamed(row))
  }
  return Object.assign(decode, { readsByColumn: plain !== null })
}

/** The columns of a combined row that carry `prefix`, without it (as a read of their table alone answers them). */
const unprefixed = (row: Record<string, unknown>, prefix: string): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const column of Object.keys(row)) if (column.startsWith(prefix)) out[column.slice(prefix.length)] = row[column]
  return out
}

/** A row as the client answers it when the statement is not run `withoutTransform`: every column named as a field. */
const renamedRow = (row: Record<string, unknown>): Record<string, unknown> => transformRows([row])[0]!

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
