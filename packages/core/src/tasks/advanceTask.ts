// Moves a task along its lifecycle (transitionTask): load → transition → compare-and-set save; a lost race
// reloads and decides again, so two concurrent moves never both apply to one version.
import { Clock, Effect, Option } from "effect"
import { retryOnConflict } from "../commands/conflictRetry.ts"
import { TaskStore } from "../ports/TaskStore.ts"
import { TaskNotFound } from "./errors.ts"
import { transitionTask, type TaskEvent } from "./transitionTask.ts"

export const advanceTask = Effect.fn("tasks.advanceTask")(function* (id: string, event: TaskEvent) {
  const store = yield* TaskStore
  return yield* Effect.gen(function* () {
    const found = yield* store.find(id)
    if (Option.isNone(found)) return yield* new TaskNotFound({ taskId: id })
    const next = yield* Effect.fromResult(transitionTask(found.value, event, yield* Clock.currentTimeMillis))
    yield* store.save(next)
    return next
  }).pipe(retryOnConflict)
})
