// A plain-JavaScript decoder for the rows of the token path, compiled once from a record's Schema, in front of the
// Schema's own parser. effect's parser runs every field through its generic machinery (Exits, issues, checks as
// objects): 15–30 µs per Client or Connection row and per encode of a Connection alone, about a tenth of a refresh's
// server CPU under load (bench/README.md, round 7a). This one walks the same AST and applies the same rules
// (each node's type test, its checks' own `run`, only declared keys copied, in declared order), answering the value
// Schema would answer, or `mismatch` for anything it does not accept: the caller then runs the Schema, so a row that
// does not decode fails with the Schema's own message. A Schema with a node this does not know (a transformation,
// a declaration, an index signature, a suspended or recursive node) compiles to null and is left to the Schema alone.
import { SchemaAST } from "effect"

/** What a plain decoder answers for a value it does not accept (the Schema then decides, and explains). */
export const mismatch: unique symbol = Symbol.for("adgate/plainCodec/mismatch")

export type PlainDecoder = (input: unknown) => unknown

// The checks are run as the parser runs them (`run(value, ast, options)`: undefined is a pass), on the value of the
// node they belong to. The options are a parse's defaults: a check's verdict does not depend on them.
const noOptions = {}

type Filter = { readonly _tag: "Filter"; readonly run: (input: unknown, self: SchemaAST.AST, options: object) => unknown }
type Check = Filter | { readonly _tag: "FilterGroup"; readonly checks: ReadonlyArray<Check> }

const filtersOf = (checks: ReadonlyArray<Check>, into: Array<Filter>): boolean => {
  for (const check of checks) {
    if (check._tag === "Filter") into.push(check)
    else if (check._tag === "FilterGroup") {
      if (!filtersOf(check.checks, into)) return false
    } else return false
  }
  return true
}

const withChecks = (ast: SchemaAST.AST, decode: PlainDecoder): PlainDecoder | null => {
  const checks = (ast as { readonly checks?: ReadonlyArray<Check> }).checks
  if (checks === undefined || checks.length === 0) return decode
  const filters: Array<Filter> = []
  if (!filtersOf(checks, filters)) return null
  return (input) => {
    const value = decode(input)
    if (value === mismatch) return mismatch
    for (const filter of filters) if (filter.run(value, ast, noOptions) !== undefined) return mismatch
    return value
  }
}

/** Where a struct's fields are read from: by default its own keys, for a row read as sent the field's column. */
type Columns = { readonly column: (field: string) => string }

const compile = (ast: SchemaAST.AST, columns?: Columns): PlainDecoder | null => {
  // Only the record itself is read by column: its nested values (jsonb) keep their keys.
  if (columns !== undefined && ast._tag !== "Objects") return null
  // A node with an encoding is a transformation: its two sides differ, not a plain value.
  if (ast.encoding !== undefined) return null
  switch (ast._tag) {
    case "String":
      return withChecks(ast, (v) => typeof v === "string" ? v : mismatch)
    case "Number":
      return withChecks(ast, (v) => typeof v === "number" ? v : mismatch)
    case "Boolean":
      return withChecks(ast, (v) => typeof v === "boolean" ? v : mismatch)
    case "Null":
      return withChecks(ast, (v) => v === null ? v : mismatch)
    case "Literal": {
      const literal = ast.literal
      return withChecks(ast, (v) => v === literal ? v : mismatch)
    }
    case "Union": {
      const members: Array<PlainDecoder> = []
      for (const member of ast.types) {
        const decode = compile(member)
        if (decode === null) return null
        members.push(decode)
      }
      // The first member that accepts the value answers it, as the parser tries its candidates in order.
      return withChecks(ast, (v) => {
        for (const member of members) {
          const value = member(v)
          if (value !== mismatch) return value
        }
        return mismatch
      })
    }
    case "Arrays": {
      // An Array(X): no fixed elements, one rest type.
      if (ast.elements.length !== 0 || ast.rest.length !== 1 || ast.encodingChecks !== undefined) return null
      const item = compile(ast.rest[0]!)
      if (item === null) return null
      return withChecks(ast, (v) => {
        if (!Array.isArray(v)) return mismatch
        const out = new Array<unknown>(v.length)
        for (let i = 0; i < v.length; i++) {
          const value = item(v[i])
          if (value === mismatch) return mismatch
          out[i] = value
        }
        return out
      })
    }
    case "Objects": {
      if (ast.indexSignatures.length !== 0 || ast.propertySignatures.length === 0 || ast.encodingChecks !== undefined) return null
      const properties: Array<{ readonly name: string; readonly from: string; readonly decode: PlainDecoder; readonly optional: boolean }> = []
      for (const p of ast.propertySignatures) {
        if (typeof p.name !== "string" || p.name === "__proto__") return null
        const decode = compile(p.type)
        if (decode === null) return null
        properties.push({ name: p.name, from: columns === undefined ? p.name : columns.column(p.name), decode, optional: SchemaAST.isOptional(p.type) })
      }
      // A row read by column: int8 comes back from the drivers as bigint where the record holds a number (decodeRow's
      // normalise, applied to the row's columns only).
      const bigints = columns !== undefined
      return withChecks(ast, (v) => {
        if (typeof v !== "object" || v === null || Array.isArray(v)) return mismatch
        const record = v as Record<string, unknown>
        const out: Record<string, unknown> = {}
        for (const p of properties) {
          // `in`, as the parser tests a key (so an inherited key counts, as there).
          if (!(p.from in record)) {
            // An absent optional key stays absent; an absent required one is the Schema's to explain.
            if (p.optional) continue
            return mismatch
          }
          let field = record[p.from]
          if (bigints && typeof field === "bigint") field = Number(field)
          const value = p.decode(field)
          if (value === mismatch) return mismatch
          out[p.name] = value
        }
        return out
      })
    }
    default:
      return null
  }
}

/**
 * The plain decoder of `ast` (a Schema's `.ast`) for values whose encoded and decoded forms are the same (no
 * transformation anywhere in it), or null when it has a node this does not compile.
 */
export const plainDecoder = (ast: SchemaAST.AST): PlainDecoder | null => compile(ast)

/**
 * The plain decoder of a struct `ast` reading a row as the driver sent it: each field from `column(field)` (its
 * snake_case column, with a prefix in a combined read), an int8's bigint as a number; the value is the one
 * `plainDecoder` answers for the row renamed to the fields. Null when `ast` is not a struct or has a node this does
 * not compile.
 */
export const plainColumnDecoder = (ast: SchemaAST.AST, column: (field: string) => string): PlainDecoder | null =>
  compile(ast, { column })
