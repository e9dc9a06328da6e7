// One naming rule for every statement, on PostgreSQL and PGlite alike: the core's camelCase field names become
// snake_case columns in queries (`sql.insert`, `sql.update`, `sql("name")`), and result columns come back camelCase.
// Only a row's own columns are renamed, never the keys inside a json/jsonb value (`transformJson: false`): a
// stored request, audit detail or tool result keeps its keys exactly as written.
import { String as Str } from "effect"
import { Statement } from "effect/sql"

// Column names are few and repeat on every row: each is converted once (a regex per column per row was ~3 % of the
// server's CPU on a refresh, bench/README.md). The cache is bounded in case a caller builds names dynamically.
const remembered = (convert: (name: string) => string) => {
  const names = new Map<string, string>()
  return (name: string): string => {
    let converted = names.get(name)
    if (converted === undefined) {
      converted = convert(name)
      if (names.size < 10_000) names.set(name, converted)
    }
    return converted
  }
}

/** The name transforms of the SqlClient (PgClient options; PgliteClient applies the same). */
export const sqlNames = {
  transformQueryNames: remembered(Str.camelToSnake),
  transformResultNames: remembered(Str.snakeToCamel),
  transformJson: false
} as const

/** The result rows' transform for a client built with `SqlClient.make`, as PgClient builds its own. */
export const transformRows = Statement.defaultTransforms(sqlNames.transformResultNames, sqlNames.transformJson).array
