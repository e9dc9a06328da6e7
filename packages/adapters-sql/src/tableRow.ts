// A record's row for `sql.insert` / `sql.update`: the record's Schema is the only list of columns. It encodes the
// record (its fields are the columns, named snake_case by the client's sqlNames), and the fields kept in jsonb
// columns are written as JSON text (SQL NULL for null), which PostgreSQL and PGlite both read as the column's type.
import { StoreUnavailable } from "@adgate/core"
import { Cause, Effect, Exit, Schema } from "effect"
import { Statement } from "effect/sql"
import { sqlNames } from "./sqlNames.ts"

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
  readonly insertSelect: (row: Fields, computed?: { readonly [field: string]: Statement.Fragment }) => Statement.Fragment
  /**
   * `"column" = $n, …` of an encoded row, every field but `omit`: what `sql.update(row, omit)` writes after `SET`,
   * for the compare-and-set saves of the token path.
   */
  readonly assignments: (row: Fields, omit: ReadonlyArray<string>) => Statement.Fragment
}

// The token path's statements (a refresh's and an exchange's one write) are built on every request: with a helper
// or a fragment per column, the statement compiler escapes every column name again (two regex replacements each) and
// walks a fragment per value, ~25 µs for a refresh's write (bench/README.md, round 4). The quoted column names are
// made once per field here, as the client's compiler makes them (sqlNames, then its `"` escape), and the statement
// gets one literal per column and one parameter per value: the same SQL text and parameters.
const quoteIdentifier = Statement.defaultEscape("\"")
const comma = Statement.literal(", ")
const jsonbCast = Statement.literal("::jsonb")

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
  const columns = new Map<string, string>()
  const column = (field: string): string => {
    let quoted = columns.get(field)
    if (quoted === undefined) {
      quoted = quoteIdentifier(sqlNames.transformQueryNames(field))
      columns.set(field, quoted)
    }
    return quoted
  }
  const assignmentOf = new Map<string, readonly [first: Statement.Literal, next: Statement.Literal]>()
  const assignment = (field: string) => {
    let literals = assignmentOf.get(field)
    if (literals === undefined) {
      literals = [Statement.literal(`${column(field)} = `), Statement.literal(`, ${column(field)} = `)]
      assignmentOf.set(field, literals)
    }
    return literals
  }
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
    insertSelect: (row, computed) => {
      const fields = Object.keys(row)
      const segments: Array<Statement.Segment> = [Statement.literal(`(${fields.map(column).join(", ")}) SELECT `)]
      for (let i = 0; i < fields.length; i++) {
        const field = fields[i]!
        if (i > 0) segments.push(comma)
        const expression = computed?.[field]
        if (expression !== undefined) segments.push(...expression.segments)
        else {
          segments.push(Statement.parameter(row[field]))
          if (jsonb.has(field)) segments.push(jsonbCast)
        }
      }
      return Statement.fragment(segments)
    },
    assignments: (row, omit) => {
      const segments: Array<Statement.Segment> = []
      for (const field of Object.keys(row)) {
        if (omit.includes(field)) continue
        segments.push(assignment(field)[segments.length === 0 ? 0 : 1], Statement.parameter(row[field] ?? null))
      }
      return Statement.fragment(segments)
    }
  }
}
