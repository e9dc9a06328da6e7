// A record's row for `sql.insert` / `sql.update`: the record's Schema is the only list of columns. It encodes the
// record (its fields are the columns, named snake_case by the client's sqlNames), and the fields kept in jsonb
// columns are written as JSON text (SQL NULL for null), which PostgreSQL and PGlite both read as the column's type.
import { StoreUnavailable } from "@adgate/core"
import { Effect, Schema } from "effect"

type Fields = { readonly [field: string]: unknown }

export interface TableRow<T extends Fields> {
  /** The row of `record`, or StoreUnavailable("<table> row <key> does not encode: …") for `operation`. */
  readonly encode: (record: T, operation: string) => Effect.Effect<Fields, StoreUnavailable>
}

/**
 * The rows of `table` for records of `schema` (its Encoded side is the row: rename a column with
 * `Schema.encodeKeys`); `key` names the record's key field for messages, `jsonb` the fields stored as jsonb.
 */
export const tableRow = <T extends Fields, E extends Fields>(
  schema: Schema.Codec<T, E>,
  options: { readonly table: string; readonly key: keyof T & string; readonly jsonb?: ReadonlyArray<keyof E & string> }
): TableRow<T> => {
  const encode = Schema.encodeEffect(schema)
  const jsonb = options.jsonb ?? []
  return {
    encode: (record, operation) =>
      encode(record, { errors: "all" }).pipe(
        Effect.map((encoded) => {
          const row: { [field: string]: unknown } = { ...encoded }
          for (const field of jsonb) row[field] = row[field] === null ? null : JSON.stringify(row[field])
          return row
        }),
        Effect.mapError((error) =>
          new StoreUnavailable({
            operation,
            message: `${options.table} row ${JSON.stringify(String(record[options.key]))} does not encode: ${error.message}`
          }))
      )
  }
}
