// Moves a task along its lifecycle by id (transitionTask), a command on the runner: load → transition →
// compare-and-set save with the move's task event in the outbox; a lost race reloads and decides again, so two
// concurrent moves never both apply to one version.
import { Effect } from "effect"
import { runCommand } from "../commands/runCommand.ts"
import { TaskStore } from "../ports/TaskStore.ts"
import { TaskNotFound } from "./errors.ts"
import { transitionTask, type TaskEvent } from "./transitionTask.ts"
import type { TaskId } from "./Task.ts"

export const advanceTask = Effect.fn("tasks.advanceTask")(function* (id: TaskId, event: TaskEvent) {
  const store = yield* TaskStore
  return yield* runCommand({
    load: store.find(id),
    missing: () => new TaskNotFound({ taskId: id }),
    transition: (task, now) => transitionTask(task, event, now),
    writes: { _tag: "Save", save: store.save }
  })
})
