// The one shape every lifecycle transition returns (architecture §Lifecycles are pure transitions): the next state
// to save (or none), the domain events it causes, and the answer or the refusal. A refusal may carry a next state
// (a counted failed attempt, a late decision that marks the request expired): the runner commits it, then fails.
import { Result } from "effect"
import type { DomainEvent } from "./DomainEvent.ts"

export interface Transition<S, A, E> {
  readonly next: S | null
  readonly events: ReadonlyArray<DomainEvent>
  readonly outcome: Result.Result<A, E>
}

/** A change of state with its answer. */
export const moved = <S, A>(next: S, answer: A, events: ReadonlyArray<DomainEvent> = []): Transition<S, A, never> => ({
  next, events, outcome: Result.succeed(answer)
})

/** A refusal; `next` and `events` only when the refusal itself changes something that must stay. */
export const refused = <S, E>(error: E, next: S | null = null, events: ReadonlyArray<DomainEvent> = []): Transition<S, never, E> => ({
  next, events, outcome: Result.fail(error)
})

/** An answer that changes nothing. */
export const unchanged = <A>(answer: A): Transition<never, A, never> => ({ next: null, events: [], outcome: Result.succeed(answer) })
