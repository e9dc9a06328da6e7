// tableRow's statement pieces for the token path (src/tableRow.ts): `assignments` and `insertSelect` quote each column
// once per table instead of leaving it to the compiler on every request, so they must compile to exactly what the
// client's own helpers and a fragment per column compile to, with the client's names (sqlNames) and its escape.
import { PgClient } from "@effect/sql-pg"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { Statement } from "effect/sql"
import { connectionRow } from "../src/followingWrites.ts"
import { sqlNames } from "../src/sqlNames.ts"
import { aConnection } from "@adgate/contract-kit"

// A statement builder with the clients' compiler (PgClient and PgliteClient compile alike); nothing is executed.
const compiler = PgClient.makeCompiler(sqlNames.transformQueryNames, sqlNames.transformJson)
const sql = Statement.make(Effect.die("compiled only"), compiler, [], undefined)

const encoded = (): { readonly [field: string]: unknown } => {
  const row = connectionRow.encodeExit(aConnection(), "test")
  if (Exit.isFailure(row)) throw new Error("the fixture does not encode")
  return row.value
}

describe("tableRow", () => {
  it("assignments compile to what sql.update compiles to: the same text, the same parameters", () => {
    const row = encoded()
    const ours = sql`UPDATE connections SET ${connectionRow.assignments(row, ["id"])} WHERE id = ${"x"}`.compile()
    const helper = sql`UPDATE connections SET ${sql.update(row, ["id"])} WHERE id = ${"x"}`.compile()
    expect(ours).toStrictEqual(helper)
    expect(ours[0]).toContain(`"role_confirmed_at" = $`)
    expect(ours[0]).not.toContain(`"id" =`)
  })

  it("insertSelect compiles to a column fragment per field and a parameter per value, jsonb fields cast", () => {
    const row = encoded()
    const comma = sql.join(", ", false)
    const fields = Object.keys(row)
    const jsonb = new Set(["scopes", "platforms", "refresh", "spent", "withdrawn"])
    const perField = sql`(${comma(fields.map((field) => sql`${sql(field)}`))}) SELECT ${
      comma(fields.map((field) => jsonb.has(field) ? sql`${row[field]}::jsonb` : sql`${row[field]}`))
    }`
    expect(sql`INSERT INTO connections ${connectionRow.insertSelect(row)} FROM saved`.compile())
      .toStrictEqual(sql`INSERT INTO connections ${perField} FROM saved`.compile())
  })
})
