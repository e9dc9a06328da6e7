// PostgreSQL's wire messages for PgliteClient's named statements and transaction control, written and read here
// rather than through PGlite's `execProtocol` (bench/README.md, round 9). For every statement PGlite copied the answer
// three times (the WASM's bytes, its own receive buffer, a copy of that buffer for the caller), built a message object
// per row with a copied buffer per value (its private fields each a WeakMap lookup), and PgliteClient then walked those
// messages a second time (`parseResults`) to build the rows. Here the request is written into one reused buffer, the
// answer is copied once out of the WASM's memory, and one pass over its bytes builds the rows, each value parsed by
// PGlite's own parser for its type, as `parseResults` does.

/** A result column as the statement's Describe gave it, with PGlite's parser for its type (none: the text as is). */
export interface Column {
  readonly name: string
  readonly dataTypeID: number
  readonly parse: ((text: string, typeId?: number) => unknown) | undefined
}

/** A statement's result columns, and whether its rows can be built by plain assignment (no column named `__proto__`). */
export interface Columns {
  readonly list: ReadonlyArray<Column>
  readonly plainNames: boolean
}

export const columnsOf = (list: ReadonlyArray<Column>): Columns => ({
  list,
  plainNames: list.every((column) => column.name !== "__proto__")
})

/** A statement that answers no rows (transaction control). */
export const noColumns: Columns = columnsOf([])

const encoder = new TextEncoder()
// Not fatal, as PGlite's reader: PostgreSQL sends valid UTF-8.
const decoder = new TextDecoder()

/** Above this, a buffer grown for one large request or answer is let go after it, not kept for the life of the server. */
const keptBufferBytes = 1 << 20

/** A byte buffer reused from one statement to the next, grown (by doubling) when a message needs more room. */
class Bytes {
  bytes: Uint8Array
  view: DataView
  length = 0
  readonly initialSize: number
  constructor(initialSize: number) {
    this.initialSize = initialSize
    this.bytes = new Uint8Array(initialSize)
    this.view = new DataView(this.bytes.buffer)
  }
  room(needed: number): void {
    if (this.length + needed <= this.bytes.length) return
    let size = this.bytes.length * 2
    while (size < this.length + needed) size *= 2
    const bytes = new Uint8Array(size)
    bytes.set(this.bytes.subarray(0, this.length))
    this.bytes = bytes
    this.view = new DataView(bytes.buffer)
  }
  append(chunk: Uint8Array): void {
    this.room(chunk.length)
    this.bytes.set(chunk, this.length)
    this.length += chunk.length
  }
  /** Empty again, and back to its initial size if one large message had grown it. */
  reset(): void {
    this.length = 0
    if (this.bytes.length > keptBufferBytes) {
      this.bytes = new Uint8Array(this.initialSize)
      this.view = new DataView(this.bytes.buffer)
    }
  }
}

/** Bind's fixed part for a named statement: the unnamed portal, then the statement's name, both NUL-terminated. */
export const bindHead = (statement: string): Uint8Array => {
  const name = encoder.encode(statement)
  const head = new Uint8Array(name.length + 2)
  head.set(name, 1)
  return head
}

/**
 * The requests: Bind (every parameter in text, as PGlite's `serialize.bind` writes them; NULL as length -1), then
 * `tail`, the messages that follow every Bind unchanged (Execute and Sync), serialised once.
 */
export const makeRequests = (tail: Uint8Array) => {
  const out = new Bytes(4096)
  /** Query (the simple protocol): one statement's text, run and answered up to ReadyForQuery with no Sync. */
  const query = (text: string): Uint8Array => {
    out.reset()
    out.room(1 + 4 + text.length * 3 + 1)
    out.bytes[0] = 0x51 // 'Q'
    const { written } = encoder.encodeInto(text, out.bytes.subarray(5))
    out.bytes[5 + written] = 0
    out.length = 6 + written
    out.view.setInt32(1, out.length - 1)
    return out.bytes.subarray(0, out.length)
  }
  const bind = (head: Uint8Array, values: ReadonlyArray<string | null>): Uint8Array => {
    out.reset()
    out.room(1 + 4 + head.length + 2 + 2 + 2)
    const bytes0 = out.bytes
    bytes0[0] = 0x42 // 'B'
    bytes0.set(head, 5)
    let at = 5 + head.length
    // No parameter format codes: all in text. Then the values.
    out.view.setInt16(at, 0)
    out.view.setInt16(at + 2, values.length)
    at += 4
    for (const value of values) {
      out.length = at
      if (value === null) {
        out.room(4)
        out.view.setInt32(at, -1)
        at += 4
      } else {
        // UTF-8 takes at most 3 bytes per UTF-16 unit.
        out.room(4 + value.length * 3)
        const { written } = encoder.encodeInto(value, out.bytes.subarray(at + 4))
        out.view.setInt32(at, written)
        at += 4 + written
      }
    }
    out.length = at
    out.room(2 + tail.length)
    // No result format codes: all columns in text.
    out.view.setInt16(at, 0)
    at += 2
    out.view.setInt32(1, at - 1)
    out.bytes.set(tail, at)
    out.length = at + tail.length
    return out.bytes.subarray(0, out.length)
  }
  return { bind, query }
}

/** The answer: the bytes PGlite hands over while the WASM runs (views into its memory), copied once as they come. */
export const makeAnswer = () => {
  const answer = new Bytes(16384)
  return {
    /** For PGlite's `onRawData`: the view is only valid during the call. */
    onRawData: (chunk: Uint8Array): void => answer.append(chunk),
    start: (): void => answer.reset(),
    /** The answer's bytes, as they are until the next `start`. */
    bytes: (): Uint8Array => answer.bytes.subarray(0, answer.length),
    /**
     * The session's transaction status as the answer's ReadyForQuery (its last message) gives it: 'I' outside a
     * transaction block, 'T' in one, 'E' in a failed one; undefined without it.
     */
    status: (): number | undefined => {
      const { bytes, length } = answer
      return length >= 6 && bytes[length - 6] === 0x5a /* 'Z' */ && answer.view.getInt32(length - 5) === 5 ? bytes[length - 1] : undefined
    },
    /**
     * The rows of the answer, in `rowMode` (objects keyed by column name, or arrays), or the first ErrorResponse as
     * `readError` reads it. Other messages are skipped as PGlite's `parseResults` skips them (BindComplete,
     * CommandComplete, notices). ReadyForQuery ends every answer, error or not (after Sync, or a simple Query): an
     * answer without it was read before PGlite had run the request, and is refused rather than read as no rows.
     */
    rows: (
      columns: Columns,
      rowMode: "object" | "array",
      readError: (message: Uint8Array) => unknown
    ): Array<unknown> => {
      const { bytes, view, length } = answer
      const rows: Array<unknown> = []
      const list = columns.list
      const count = list.length
      let ready = false
      let at = 0
      while (at + 5 <= length) {
        const code = bytes[at]!
        const next = at + 1 + view.getInt32(at + 1)
        if (next > length) throw new Error(`PGlite answered an incomplete message (${String.fromCharCode(code)})`)
        if (code === 0x44 /* 'D' DataRow */) {
          const fields = view.getInt16(at + 5)
          if (fields !== count) throw new Error(`PGlite answered ${fields} columns where the statement has ${count}`)
          let field = at + 7
          const row: Array<unknown> | Record<string, unknown> = rowMode === "array" ? [] : {}
          for (let i = 0; i < count; i++) {
            const size = view.getInt32(field)
            field += 4
            let value: unknown = null
            if (size >= 0) {
              const column = list[i]!
              const text = decoder.decode(bytes.subarray(field, field + size))
              value = column.parse === undefined ? text : column.parse(text, column.dataTypeID)
              field += size
            }
            if (rowMode === "array") (row as Array<unknown>).push(value)
            else if (columns.plainNames) (row as Record<string, unknown>)[list[i]!.name] = value
            // As Object.fromEntries does: an own property even for `__proto__`.
            else Object.defineProperty(row, list[i]!.name, { value, writable: true, enumerable: true, configurable: true })
          }
          rows.push(row)
        } else if (code === 0x45 /* 'E' ErrorResponse */) {
          throw readError(bytes.slice(at, next))
        } else if (code === 0x5a /* 'Z' ReadyForQuery */) {
          ready = true
        }
        at = next
      }
      if (!ready) throw new Error("PGlite's answer ended before ReadyForQuery")
      return rows
    }
  }
}
