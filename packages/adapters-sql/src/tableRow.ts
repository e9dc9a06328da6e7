// A record's row for `sql.insert` / `sql.update`: the record's Schema is the only list of columns. It encodes the
// record (its fields are the columns, named snake_case by the client's sqlNames), and the fields kept in jsonb
// columns are written as JSON text (SQL NULL for null), which PostgreSQL and PGlite both read as the column's type.
import { StoreUnavailable } from "@adgate/core"
import { Cause, Effect, Exit, Schema } from "effect"
import type { SqlClient, Statement } from "effect/sql"

type Fields = { readonly [field: string]: unknown }

export interface TableRow<T extends Fields> {
  /** The row of `record`, or StoreUnavailable("<table> row <key> does not encode: …") for `operation`. */
  readonly encode: (record: T, operation: string) => Effect.Effect<Fields, StoreUnavailable>
  /** `encode` as an Exit, for statements built synchronously (the CTEs of followingWrites.ts). */
  readonly encodeExit: (record: T, operation: string) => Exit.Exit<Fields, StoreUnavailable>
  /**
   * `(columns) SELECT values` of an encoded row, to follow `INSERT INTO <table>` and precede a `FROM` that decides
   * whether it is written (a CTE returning a row): `sql.insert` can only write VALUES. jsonb fields are cast, as a
   * SELECT list's parameters are not typed by the target columns. `computed` gives some columns an SQL expression
   * over the FROM in place of the row's value (a balance only the statement knows): the columns stay the row's.
   */
  readonly insertSelect: (
    sql: SqlClient.SqlClient, row: Fields, computed?: { readonly [field: string]: Statement.Fragment }
  ) => Statement.Fragment
}

/**
 * The rows of `table` for records of `schema` (its Encoded side is the row: rename a column with
 * `Schema.encodeKeys`); `key` names the record's key field for messages, `jsonb` the fields stored as jsonb.
 */
export const tableRow = <T extends Fields, E extends Fields>(
  schema: Schema.Codec<T, E>,
  options: { readonly table: string; readonly key: keyof T & string; readonly jsonb?: ReadonlyArray<keyof E & string> }
): TableRow<T> => {
  // Compiled once per table, and synchronous (an Exit, no fiber of its own), as decodeRow's decoders are.
  const encode = Schema.encodeExit(schema)
  const jsonb = new Set<string>(options.jsonb ?? [])
  const encodeExit = (record: T, operation: string): Exit.Exit<Fields, StoreUnavailable> => {
    const encoded = encode(record, { errors: "all" })
    if (Exit.isSuccess(encoded)) {
      if (jsonb.size === 0) return Exit.succeed(encoded.value)
      const row: { [field: string]: unknown } = { ...encoded.value }
      for (const field of jsonb) row[field] = row[field] === null ? null : JSON.stringify(row[field])
      return Exit.succeed(row)
    }
    const error = Cause.squash(encoded.cause)
    return Exit.fail(new StoreUnavailable({
      operation,
      message: `${options.table} row ${JSON.stringify(String(record[options.key]))} does not encode: ${
        error instanceof Error ? error.message : String(error)
      }`
    }))
  }
  return {
    encode: (record, operation) => encodeExit(record, operation),
    encodeExit,
    insertSelect: (sql, row, computed = {}) => {
      const fields = Object.keys(row)
      const comma = sql.join(", ", false)
      return sql`(${comma(fields.map((field) => sql`${sql(field)}`))}) SELECT ${
        comma(fields.map((field) =>
          computed[field] ?? (jsonb.has(field) ? sql`${row[field]}::jsonb` : sql`${row[field]}`)))
      }`
    }
  }
}
