// The token path's write statements as one constant text per shape, and only their parameters per request. Built
// from fragments (`sql\`…\``, a fragment per row), a statement is a new object every request: the client compiles it
// to text again (its cache is per fragment object), and the text, 1–3 KB with its CTEs, is rebuilt, concatenated with
// its parameter types and hashed again as @effect/sql-pg's prepared-statement key (bench/README.md, round 7a). Here a
// statement is written by one function that emits text and parameters in order: on the first request of a shape it
// writes both, and the text is kept; afterwards the same function only collects the parameters, and the statement
// runs as `sql.unsafe(text, params)` with the kept string. One function for both, so the text's placeholders and the
// parameters cannot drift apart.

/** What a statement's emitter writes to: SQL text (kept once per shape) and parameters (every request). */
export interface StatementSink {
  /** Appends SQL text (a constant or a string made once: it is discarded when the text is already kept). */
  readonly sql: (text: string) => void
  /** Appends a parameter and its placeholder `$n`. */
  readonly param: (value: unknown) => void
}

class Collecting implements StatementSink {
  readonly params: Array<unknown> = []
  sql(_text: string): void {}
  param(value: unknown): void {
    this.params.push(value)
  }
}

class Writing implements StatementSink {
  readonly params: Array<unknown> = []
  text = ""
  sql(text: string): void {
    this.text += text
  }
  param(value: unknown): void {
    this.params.push(value)
    this.text += `$${this.params.length}`
  }
}

/**
 * How many statement texts were written so far, in this process (every family): a test's probe that a request of a
 * known shape writes none, i.e. that nothing per request slipped into a shape key or a text.
 */
export const textsWritten = { count: 0 }

/**
 * The texts of one statement family by shape. `compile(shape, emit)` answers the text kept for `shape` (a short key
 * naming everything the text depends on: which rows follow, how many, their column layouts) and the parameters
 * `emit` collects now; the first call of a shape writes the text. The number of shapes is small (a handful per
 * family), bounded anyway so that a caller passing unbounded shapes cannot grow it.
 */
export const statementTexts = (maxShapes = 64) => {
  const texts = new Map<string, string>()
  return (shape: string, emit: (sink: StatementSink) => void): { readonly text: string; readonly params: Array<unknown> } => {
    const kept = texts.get(shape)
    if (kept !== undefined) {
      const sink = new Collecting()
      emit(sink)
      return { text: kept, params: sink.params }
    }
    const sink = new Writing()
    emit(sink)
    textsWritten.count++
    if (texts.size < maxShapes) texts.set(shape, sink.text)
    return { text: sink.text, params: sink.params }
  }
}
