// How long a process holds work it claimed (docs/limits.md, Leases): an approved write's execution, a task pass, a
// mail's send and a call's Idempotency-Key. A process that dies (SIGKILL, a lost host) holds its claim until the lease ends; then any
// other process takes the work over. Each lease must outlast the work it covers: a takeover of work still running is
// safe (the platform idempotency token, the task's idempotency keys, the mail's Message-ID) but does it twice.
import { Context } from "effect"

export interface WorkLeasesShape {
  /**
   * One execution of an approved write (ClaimExecution): the preview, the credits, the platform call (at most
   * PlatformCallDeadlineMs, 30 s) and the record. Housekeeping looks for lapsed ones every half lease.
   */
  readonly writeExecutionMs: number
  /** One runner pass over a task: its plan's reads and changes, each a tool call of at most the platform deadline. */
  readonly taskMs: number
  /** One mail's send over SMTP; the send itself is given up after half of it (its outcome then unknown). */
  readonly mailSendMs: number
  /**
   * How long a mail the mail server refused (or that could not be handed to it) waits before it is tried again: this,
   * doubled with each refusal, at most 15 minutes (mail/transitionMail.ts refusalBackoffMs). Not a lease, a pace.
   */
  readonly mailRetryMs: number
  /**
   * An Idempotency-Key in flight (idempotency/runIdempotent.ts): how long a call holds its key without an answer before
   * a retry may take it (the holder presumed dead); a retry meanwhile is 409.
   */
  readonly idempotencyKeyMs: number
}

/** The defaults: sized for the work each covers on a real deployment (docs/limits.md, Leases). */
export const defaultWorkLeases: WorkLeasesShape = {
  writeExecutionMs: 60_000, taskMs: 120_000, mailSendMs: 120_000, mailRetryMs: 5_000, idempotencyKeyMs: 60_000
}

/**
 * The leases of this process (ADGATE_WRITE_EXECUTION_LEASE, ADGATE_TASK_LEASE, ADGATE_MAIL_SEND_LEASE,
 * ADGATE_IDEMPOTENCY_KEY_LEASE) and the mail's retry pace (ADGATE_MAIL_RETRY).
 */
export const WorkLeases = Context.Reference<WorkLeasesShape>("core/ports/WorkLeases", { defaultValue: () => defaultWorkLeases })
