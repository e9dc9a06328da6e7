// decodeColumns (src/decodeRow.ts) reads the token path's combined rows straight from their columns only while plainCodec
// compiles the record and every field's name round-trips between camelCase and snake_case; a record that stops doing
// so still decodes (renamed, by decodeRow), only slower, so its readsByColumn is what tells.
import { AuthorizationCode, Client, Connection } from "@adgate/core"
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { decodeColumns } from "../src/decodeRow.ts"

const source = { operation: "test", table: "rows", key: "id" }

describe("decodeColumns", () => {
  it("reads Connection, Client (prefixed, as GrantReaderSql reads it) and AuthorizationCode rows by column", () => {
    expect(decodeColumns(Connection, source).readsByColumn).toBe(true)
    expect(decodeColumns(Client, source, { prefix: "cl_" }).readsByColumn).toBe(true)
    expect(decodeColumns(AuthorizationCode, source).readsByColumn).toBe(true)
  })

  it("does not read by column a record with a field whose name does not round-trip (a_b comes back aB) or that plainCodec does not compile", () => {
    expect(decodeColumns(Schema.Struct({ id: Schema.String, aB1: Schema.Number }), source).readsByColumn).toBe(true)
    expect(decodeColumns(Schema.Struct({ id: Schema.String, a_b: Schema.Number }), source).readsByColumn).toBe(false)
    expect(decodeColumns(Schema.Struct({ id: Schema.String, Ab: Schema.Number }), source, { prefix: "cl_" }).readsByColumn).toBe(false)
    expect(decodeColumns(Schema.Struct({ id: Schema.String, at: Schema.Date }), source).readsByColumn).toBe(false)
  })
})
