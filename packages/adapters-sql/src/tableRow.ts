// A record's row for `sql.insert` / `sql.update`: the record's Schema is the only list of columns. It encodes the
// record (its fields are the columns, named snake_case by the client's sqlNames), and the fields kept in jsonb
// columns are written as JSON text (SQL NULL for null), which PostgreSQL and PGlite both read as the column's type.
import { StoreUnavailable } from "@adgate/core"
import { Cause, Effect, Exit, Schema } from "effect"
import { Statement } from "effect/sql"
import { mismatch, plainDecoder } from "./plainCodec.ts"
import { sqlNames } from "./sqlNames.ts"
import type { StatementSink } from "./statementText.ts"

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
   * The row's columns in order, and a number naming that order for statementTexts' shape keys (the same fields in
   * the same order are the same number: an encoded record's keys follow its Schema, so a table has one or two).
   */
  readonly layout: (row: Fields) => RowLayout
  /**
   * `"column" = $n, …` of an encoded row, every field but `omit`, written to a statementTexts sink: what
   * `sql.update(row, omit)` writes after `SET`, for the compare-and-set saves of the token path.
   */
  readonly emitAssignments: (sink: StatementSink, row: Fields, layout: RowLayout, omit: ReadonlyArray<string>) => void
  /** `insertSelect` (without `computed`) written to a statementTexts sink: `(columns) SELECT $n, $n::jsonb, …`. */
  readonly emitInsertSelect: (sink: StatementSink, row: Fields, layout: RowLayout) => void
}

/** An encoded row's field order (TableRow.layout). */
export interface RowLayout {
  readonly id: number
  readonly fields: ReadonlyArray<string>
  /** `(columns) SELECT `, made once per layout. */
  readonly columnList: string
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
  // For a Schema with no transformation the row is the record's declared fields, checked as the Schema checks them:
  // plainCodec's decoder answers exactly that (encoded and decoded sides are one); anything else goes to the Schema.
  const plain = plainDecoder(schema.ast)
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
  const assignmentOf = new Map<string, readonly [first: string, next: string]>()
  const assignment = (field: string) => {
    let texts = assignmentOf.get(field)
    if (texts === undefined) {
      texts = [`${column(field)} = `, `, ${column(field)} = `]
      assignmentOf.set(field, texts)
    }
    return texts
  }
  const layouts: Array<RowLayout> = []
  const sameFields = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => {
    if (a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
    return true
  }
  const layout = (row: Fields): RowLayout => {
    const fields = Object.keys(row)
    for (const known of layouts) if (sameFields(known.fields, fields)) return known
    const made = { id: layouts.length, fields, columnList: `(${fields.map(column).join(", ")}) SELECT ` }
    layouts.push(made)
    return made
  }
  const withJsonText = (encoded: Fields): Fields => {
    if (jsonb.size === 0) return encoded
    const row: { [field: string]: unknown } = { ...encoded }
    for (const field of jsonb) row[field] = row[field] === null ? null : JSON.stringify(row[field])
    return row
  }
  const encodeExit = (record: T, operation: string): Exit.Exit<Fields, StoreUnavailable> => {
    const value = plain === null ? mismatch : plain(record)
    if (value !== mismatch) return Exit.succeed(withJsonText(value as Fields))
    const encoded = encode(record, { errors: "all" })
    if (Exit.isSuccess(encoded)) return Exit.succeed(withJsonText(encoded.value))
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
    layout,
    emitAssignments: (sink, row, layout, omit) => {
      let first = true
      for (const field of layout.fields) {
        if (omit.includes(field)) continue
        sink.sql(assignment(field)[first ? 0 : 1])
        sink.param(row[field] ?? null)
        first = false
      }
    },
    emitInsertSelect: (sink, row, layout) => {
      sink.sql(layout.columnList)
      const fields = layout.fields
      for (let i = 0; i < fields.length; i++) {
        const field = fields[i]!
        if (i > 0) sink.sql(", ")
        sink.param(row[field])
        if (jsonb.has(field)) sink.sql("::jsonb")
      }
    }
  }
}
