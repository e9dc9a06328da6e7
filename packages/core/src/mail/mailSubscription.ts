// Which events are mailed (spec §Events: "E-mails go to workspace admins when an app is connected, and to the
// connecting person when a change waits for approval"): the mail reader's subscription to the outbox. Who gets what,
// with which facts, is the mail reader's (adapters-sql/src/readers/mailReader.ts); its switch is over these kinds.
import type { OutboxSubscription, TakenEvent } from "../ports/EventOutbox.ts"

/** The mail reader takes an app connected (ConnectionOpened) and a change waiting (WriteQueued), nothing else. */
export const mailSubscription = {
  name: "mail",
  takes: ["ConnectionOpened", "WriteQueued"]
} as const satisfies OutboxSubscription

/** An event the mail reader is handed. */
export type MailedEvent = TakenEvent<typeof mailSubscription>
