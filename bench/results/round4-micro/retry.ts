import { Effect } from "effect"
const isConflict = (error: unknown): boolean => typeof error === "object" && error !== null && "_tag" in error && (error as any)._tag === "Conflict"
const viaRetry = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.retry(self, { while: isConflict, times: 3 })
const manual = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const loop = (left: number): Effect.Effect<A, E, R> => left === 0 ? self : Effect.catchIf(self, isConflict, () => loop(left - 1)) as any
  return loop(3)
}
const work = Effect.sync(() => 1)
const N = 200000
for (const [name, f] of [["retry", viaRetry], ["manual", manual], ["none", (x: any) => x]] as const) {
  for (let r = 0; r < 2; r++) {
    const prog = Effect.gen(function* () { for (let i = 0; i < N; i++) yield* (f as any)(work) })
    const t = process.cpuUsage(); Effect.runSync(prog); const c = process.cpuUsage(t)
    console.log(name, ((c.user + c.system) / N).toFixed(2), "µs")
  }
}
