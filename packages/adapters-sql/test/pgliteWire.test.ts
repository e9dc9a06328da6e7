// The wire messages of PgliteClient's named statements, byte for byte (PostgreSQL's protocol, "Message Formats"):
// Bind and Query as written into the reused buffer, and an answer read in one pass whatever the chunks PGlite hands
// it in, refused when it does not end with ReadyForQuery.
import { assert, describe, it } from "@effect/vitest"
import { bindHead, columnsOf, makeAnswer, makeRequests } from "../src/pgliteWire.ts"

const utf8 = (text: string) => new TextEncoder().encode(text)
const int16 = (n: number) => [(n >> 8) & 0xff, n & 0xff]
const int32 = (n: number) => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]
/** A backend message: its type byte, its length (itself included), its body. */
const message = (type: string, body: ReadonlyArray<number>) => [type.charCodeAt(0), ...int32(body.length + 4), ...body]
const dataRow = (values: ReadonlyArray<string | null>) =>
  message("D", [...int16(values.length), ...values.flatMap((v) => (v === null ? int32(-1) : [...int32(utf8(v).length), ...utf8(v)]))])
const ready = message("Z", ["I".charCodeAt(0)])
const commandComplete = (tag: string) => message("C", [...utf8(tag), 0])

describe("the requests", () => {
  const tail = Uint8Array.from([...message("E", [0, ...int32(0)]), ...message("S", [])])

  it("Bind: the unnamed portal, the statement's name, no format codes (all text), each value's length and UTF-8 bytes, NULL as -1; then the tail", () => {
    const bind = makeRequests(tail).bind(bindHead("adgate_7"), ["a", null, "é€"])
    const body = [
      0, ...utf8("adgate_7"), 0, ...int16(0), ...int16(3),
      ...int32(1), ...utf8("a"), ...int32(-1), ...int32(5), ...utf8("é€"), ...int16(0)
    ]
    assert.deepStrictEqual([...bind], [...message("B", body), ...tail])
  })

  it("a value larger than the buffer's first size grows it, and the next request is written from the start", () => {
    const requests = makeRequests(tail)
    const large = requests.bind(bindHead("s"), ["€".repeat(10_000)])
    // 'B', length, "\0s\0", 0 formats, 1 value, its length: 30 000 bytes.
    assert.deepStrictEqual([...large.subarray(12, 16)], int32(30_000))
    assert.strictEqual(large.length, 1 + 4 + 3 + 2 + 2 + 4 + 30_000 + 2 + tail.length)
    assert.deepStrictEqual([...requests.bind(bindHead("s"), [])], [...message("B", [0, ...utf8("s"), 0, 0, 0, 0, 0, 0, 0]), ...tail])
  })

  it("Query: the statement's text, NUL-terminated", () => {
    assert.deepStrictEqual([...makeRequests(tail).query("ROLLBACK TO SAVEPOINT effect_sql_2")],
      message("Q", [...utf8("ROLLBACK TO SAVEPOINT effect_sql_2"), 0]))
  })
})

describe("the answer", () => {
  const parsed: Array<[string, number | undefined]> = []
  const columns = columnsOf([
    { name: "id", dataTypeID: 23, parse: (text, typeId) => { parsed.push([text, typeId]); return Number(text) } },
    { name: "label", dataTypeID: 25, parse: undefined }
  ])
  const noError = () => new Error("no error expected")

  it("rows in both modes, each value through its column's parser, NULL as null, whatever the chunks it came in", () => {
    const answer = makeAnswer()
    const bytes = Uint8Array.from([
      ...message("2", []), ...dataRow(["1", "ünï"]), ...dataRow([null, null]), ...commandComplete("SELECT 2"), ...ready
    ])
    for (const mode of ["object", "array"] as const) {
      answer.start()
      // Split mid-message, as PGlite may flush its send buffer.
      answer.onRawData(bytes.subarray(0, 9))
      answer.onRawData(bytes.subarray(9, 20))
      answer.onRawData(bytes.subarray(20))
      const rows = answer.rows(columns, mode, noError)
      assert.deepStrictEqual(rows, mode === "object" ? [{ id: 1, label: "ünï" }, { id: null, label: null }] : [[1, "ünï"], [null, null]])
    }
    assert.deepStrictEqual(parsed, [["1", 23], ["1", 23]])
  })

  it("an ErrorResponse is read by `readError` from its own bytes, and thrown", () => {
    const answer = makeAnswer()
    const error = message("E", [..."SERROR".split("").map((c) => c.charCodeAt(0)), 0, ..."C23505".split("").map((c) => c.charCodeAt(0)), 0, 0])
    answer.start()
    answer.onRawData(Uint8Array.from([...message("2", []), ...error, ...ready]))
    let seen: Array<number> = []
    const thrown = { thrown: true }
    try {
      answer.rows(columns, "object", (bytes) => {
        seen = [...bytes]
        return thrown
      })
      assert.fail("no error thrown")
    } catch (caught) {
      assert.strictEqual(caught, thrown)
    }
    assert.deepStrictEqual(seen, error)
  })

  it("the status is ReadyForQuery's, the answer's last message: none when it is not there", () => {
    const answer = makeAnswer()
    answer.start()
    answer.onRawData(Uint8Array.from([...message("2", []), ...message("Z", ["E".charCodeAt(0)])]))
    assert.strictEqual(answer.status(), "E".charCodeAt(0))
    answer.start()
    answer.onRawData(Uint8Array.from([...dataRow(["Z", "Z"]), ...commandComplete("SELECT 1")]))
    assert.strictEqual(answer.status(), undefined)
  })

  it("an answer that does not end with ReadyForQuery is refused, not read as no rows", () => {
    const answer = makeAnswer()
    answer.start()
    answer.onRawData(Uint8Array.from(message("2", [])))
    assert.throws(() => answer.rows(columns, "object", noError), "ended before ReadyForQuery")
    answer.start()
    answer.onRawData(Uint8Array.from([...dataRow(["1", "a"]), ...ready].slice(0, 12)))
    assert.throws(() => answer.rows(columns, "object", noError), "incomplete message")
  })
})
