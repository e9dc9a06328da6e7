// The outbox's readers, listed once (architecture §Commands and events): which reader takes which kinds of event, in
// the order a pass drains them. Every outbox keeps events for this list (SQL: SqlStores' EventOutboxSql, housekeeping's
// WriteExpired rows; memory: memoryOutboxReaders), so a subscription listed here needs a reader that drains it, or its
// rows wait for ever: the SQL adapters' readers are typed over this list, one handler per subscription in this order
// (adapters-sql/src/readers/OutboxSchedule.ts), and a subscription added here without a handler there, or a handler
// there for a subscription not listed here, does not compile.
import { withdrawalsSubscription } from "../approvals/withdrawForEndedRequesters.ts"
import { auditSubscription } from "../audit/auditOfEvent.ts"
import { mailSubscription } from "../mail/mailSubscription.ts"
import type { OutboxSubscription } from "../ports/EventOutbox.ts"

/**
 * Every reader the outbox keeps events for, in the order a pass drains them. Withdrawals come first: the pending
 * writes of an ended credential should leave the queue before anything else is done about the ending.
 */
export const outboxSubscriptions = [
  withdrawalsSubscription,
  auditSubscription,
  mailSubscription
] as const satisfies ReadonlyArray<OutboxSubscription>
