// Bench-only probe (round 11): effect/sql's Statement compiler caches each compiled statement in a module WeakMap
// (effect/dist/sql/Statement.js, `cache.set(statement, result)`); this makes that one map's set a no-op, to measure
// what the cache entries cost the young generation. The map is recognised by its first set's call site.
const wmSet = WeakMap.prototype.set
const checked = new WeakSet()
let skip = null
WeakMap.prototype.set = function (k, v) {
  if (this === skip) return this
  if (skip === null && !checked.has(this)) {
    checked.add(this)
    const lim = Error.stackTraceLimit; Error.stackTraceLimit = 5
    const stack = new Error().stack ?? ""
    Error.stackTraceLimit = lim
    if (stack.includes("sql/Statement.js")) { skip = this; process.stdout.write("probe: statement cache skipped\n"); return this }
  }
  return wmSet.call(this, k, v)
}
