// plainCodec (src/plainCodec.ts) stands in front of the Schemas of the token path's rows: for every value it must
// answer what the Schema answers, or `mismatch` where the Schema fails (which then explains). Checked on the records'
// fixtures and on every field, nested ones too, replaced by values of every kind, removed, or joined by a stray key.
import { AccessToken, AuthorizationCode, Client, Connection } from "@adgate/core"
import { aClient, aCode, aConnection, anAccessToken } from "@adgate/contract-kit"
import { describe, expect, it } from "@effect/vitest"
import { Exit, Schema } from "effect"
import { mismatch, plainColumnDecoder, plainDecoder } from "../src/plainCodec.ts"
import { sqlNames } from "../src/sqlNames.ts"

const replacements: ReadonlyArray<unknown> = [
  null, "x", "", 0, 1, 1.5, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60, true, false, [], ["tools:read"], ["nope"],
  {}, { hash: "h", generation: 1, issuedAt: 1 }, "mcp", "all", "wait", "active", "ended", "revoked", "dynamic", "none"
]

/** The value with the field at `path` replaced by `value` (or removed, for `undefined`), the rest unchanged. */
const replaced = (input: unknown, path: ReadonlyArray<string>, value: unknown): unknown => {
  if (path.length === 0) return value
  const [head, ...rest] = path as [string, ...Array<string>]
  const out: Record<string, unknown> = { ...(input as Record<string, unknown>) }
  const next = replaced(out[head], rest, value)
  if (next === undefined) delete out[head]
  else out[head] = next
  return out
}

/** Every field's path, nested objects' fields too. */
const paths = (input: unknown, prefix: ReadonlyArray<string> = []): Array<ReadonlyArray<string>> => {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return []
  return Object.entries(input).flatMap(([key, value]) => [[...prefix, key], ...paths(value, [...prefix, key])])
}

const variants = (input: unknown): Array<unknown> => [
  input,
  { ...(input as object), stray: 1 },
  ...paths(input).flatMap((path) => [undefined, ...replacements].map((value) => replaced(input, path, value)))
]

const agreesWithSchema = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S, inputs: ReadonlyArray<unknown>) => {
  const plain = plainDecoder(schema.ast)
  expect(plain).not.toBeNull()
  const decode = Schema.decodeUnknownExit(schema)
  let accepted = 0
  for (const input of inputs) {
    const ours = plain!(input)
    const theirs = decode(input, { errors: "all" })
    if (Exit.isSuccess(theirs)) {
      expect(ours, JSON.stringify(input)).toStrictEqual(theirs.value)
      accepted++
    } else expect(ours, JSON.stringify(input)).toBe(mismatch)
  }
  return accepted
}

describe("plainCodec", () => {
  it("answers what the Schema answers for every Connection, Client, AccessToken and AuthorizationCode variant, and mismatch where it fails", () => {
    const cases = [
      [Connection, [aConnection(), aConnection({ spent: { hash: aConnection().refresh.hash, generation: 1, spentAt: 5 }, withdrawn: [{ generation: 1, at: 2 }], status: "ended", endedReason: "revoked", endedAt: 9 })]],
      [Client, [aClient(), { ...aClient(), productName: "Claude" }]],
      [AccessToken, [anAccessToken()]],
      [AuthorizationCode, [aCode()]]
    ] as const
    for (const [schema, fixtures] of cases) {
      const accepted = agreesWithSchema(schema as never, fixtures.flatMap(variants))
      // Both sides of the comparison are exercised: accepted variants (the fixtures, a stray key) and refused ones.
      expect(accepted).toBeGreaterThan(fixtures.length)
    }
  })

  it("reads a row by column (snake_case, prefixed, int8 as bigint) to the value it answers for the row renamed to the fields", () => {
    const cases = [
      [Connection, [aConnection(), aConnection({ status: "ended", endedReason: "revoked", endedAt: 9 })]],
      [Client, [aClient(), { ...aClient(), productName: "Claude" }]],
      [AuthorizationCode, [aCode()]]
    ] as const
    for (const prefix of ["", "cl_"]) {
      for (const [schema, fixtures] of cases) {
        const byField = plainDecoder(schema.ast)!
        const byColumn = plainColumnDecoder(schema.ast, (field) => prefix + sqlNames.transformQueryNames(field))!
        let accepted = 0
        for (const input of fixtures.flatMap(variants)) {
          // The row as the driver sends it: every column snake_case (prefixed), numbers of int8 columns as bigint.
          const row: Record<string, unknown> = {}
          for (const [field, value] of Object.entries(input as object))
            row[prefix + sqlNames.transformQueryNames(field)] = typeof value === "number" && Number.isInteger(value) ? BigInt(value) : value
          const renamed = Object.fromEntries(Object.entries(input as object).map(([field, value]) =>
            [field, typeof value === "number" && Number.isInteger(value) ? Number(BigInt(value)) : value]))
          const theirs = byField(renamed)
          expect(byColumn(row), JSON.stringify(input)).toStrictEqual(theirs)
          if (theirs !== mismatch) accepted++
        }
        expect(accepted).toBeGreaterThan(fixtures.length)
      }
    }
  })

  it("leaves a Schema with a transformation to the Schema", () => {
    expect(plainDecoder(Schema.Struct({ n: Schema.NumberFromString }).ast)).toBeNull()
    expect(plainDecoder(Schema.Struct({ at: Schema.Date }).ast)).toBeNull()
  })
})
