// The host's own database, as a host would have one: asynchronous tables of versioned rows. A real host has SQL or a
// document store here; what adgate needs of it is one promise: an update lands only if the row is still at the
// version it was read at, checked and written in one step (SQL: UPDATE … WHERE version = $n).
export interface Versioned { readonly version: number }

/** Every call crosses an await, as a call to a database server does, so racing callers really interleave. */
const roundTrip = () => new Promise<void>((resolve) => setImmediate(resolve))

export class Table<Row extends Versioned> {
  readonly #rows = new Map<string, Row>()
  /** Set to make every call fail, as a database that is down does. */
  down = false

  async #call<A>(run: () => A): Promise<A> {
    await roundTrip()
    if (this.down) throw new Error("database unavailable")
    return run()
  }

  get(key: string): Promise<Row | undefined> {
    return this.#call(() => this.#rows.get(key))
  }

  insert(key: string, row: Row): Promise<void> {
    return this.#call(() => {
      if (this.#rows.has(key)) throw new Error(`duplicate key ${key}`)
      this.#rows.set(key, row)
    })
  }

  /** Writes `row` only if the stored row is at `row.version - 1`; answers whether it did (compare-and-set). */
  update(key: string, row: Row): Promise<boolean> {
    return this.#call(() => {
      if (this.#rows.get(key)?.version !== row.version - 1) return false
      this.#rows.set(key, row)
      return true
    })
  }

  /** Inserts `row` only when `allowed(every row)` holds, checked and written in one step (a locked count). */
  insertIf(key: string, row: Row, allowed: (rows: ReadonlyArray<Row>) => boolean): Promise<boolean> {
    return this.#call(() => {
      if (!allowed([...this.#rows.values()])) return false
      this.#rows.set(key, row)
      return true
    })
  }

  /** Applies `change` to the row in one step; answers what it answered (a conditional UPDATE … RETURNING). */
  modify<A>(key: string, change: (row: Row | undefined) => readonly [A, Row | undefined]): Promise<A> {
    return this.#call(() => {
      const [answer, next] = change(this.#rows.get(key))
      if (next !== undefined) this.#rows.set(key, next)
      return answer
    })
  }

  /** Rows matching `where`, in no particular order. */
  select(where: (row: Row) => boolean): Promise<ReadonlyArray<Row>> {
    return this.#call(() => [...this.#rows.values()].filter(where))
  }
}

/** An index from a secondary key to a primary key, kept beside a table (a unique index). */
export class Index {
  readonly #keys = new Map<string, string>()

  async add(secondary: string, primary: string): Promise<void> {
    await roundTrip()
    if (!this.#keys.has(secondary)) this.#keys.set(secondary, primary)
  }

  async get(secondary: string): Promise<string | undefined> {
    await roundTrip()
    return this.#keys.get(secondary)
  }
}
