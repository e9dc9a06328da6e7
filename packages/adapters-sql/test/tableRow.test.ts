// tableRow's statement pieces for the token path (src/tableRow.ts): `emitAssignments`, `insertSelect` and
// `emitInsertSelect` quote each column once per table instead of leaving it to the compiler on every request, so they
// must compile to exactly what the client's own helpers and a fragment per column compile to, with the client's names
// (sqlNames) and its escape.
import { PgClient } from "@effect/sql-pg"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { Statement } from "effect/sql"
import { connectionRow } from "../src/followingWrites.ts"
import { sqlNames } from "../src/sqlNames.ts"
import { statementTexts } from "../src/statementText.ts"
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
  it("emitAssignments writes what sql.update compiles to: the same text, the same parameters", () => {
    const row = encoded()
    const statement = statementTexts()("t", (s) => {
      s.sql("UPDATE connections SET ")
      connectionRow.emitAssignments(s, row, connectionRow.layout(row), ["id"])
      s.sql(" WHERE id = ")
      s.param("x")
    })
    const ours = [statement.text, statement.params] as const
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
    const emitted = statementTexts()("t", (s) => {
      s.sql("INSERT INTO connections ")
      connectionRow.emitInsertSelect(s, row, connectionRow.layout(row))
      s.sql(" FROM saved")
    })
    expect([emitted.text, emitted.params]).toStrictEqual(sql`INSERT INTO connections ${perField} FROM saved`.compile())
  })

  it("a statement text is written on its shape's first call and kept: later calls only collect their parameters", () => {
    const texts = statementTexts()
    const emit = (id: string, version: number) => (s: Parameters<Parameters<typeof texts>[1]>[0]) => {
      s.sql("UPDATE t SET v = ")
      s.param(version)
      s.sql(" WHERE id = ")
      s.param(id)
    }
    const first = texts("one", emit("a", 1))
    const second = texts("one", emit("b", 2))
    expect(first.text).toBe("UPDATE t SET v = $1 WHERE id = $2")
    expect(second).toStrictEqual({ text: first.text, params: [2, "b"] })
    // A text kept under a shape is answered for it whatever the emitter writes: the shape key must name the text.
    expect(texts("one", (s) => s.sql("other")).text).toBe(first.text)
    expect(texts("two", (s) => s.sql("other")).text).toBe("other")
  })
})
