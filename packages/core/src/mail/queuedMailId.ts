// A queued mail's id and its Message-ID (RFC 5322 §3.6.4), both derived from what caused the mail: the same event and
// recipient always make the same id, so a mail the outbox reader queued again is one row (the insert keeps the first),
// and a mail sent again after a lost acknowledgement carries the Message-ID of the first send (docs/decisions.md,
// Mail delivery).
import { Effect } from "effect"
import { MailId, type MailMessage } from "../audit/AuditEntry.ts"
import { Prefix, Secrets } from "../ports/Secrets.ts"

/**
 * `mail_` + SHA-256(cause, recipient): `cause` names the event once and for all (its kind and the id of what it is
 * about, e.g. `ConnectionOpened:con_…`), `recipient` the address it goes to. Neither is secret; the hash only keeps the
 * id short and free of the address.
 */
export const queuedMailId = (cause: string, recipient: string) =>
  Effect.map(Effect.flatMap(Secrets, (secrets) => secrets.hash(`${cause}\n${recipient.toLowerCase()}`)),
    (hash) => MailId.make(`${Prefix.mail}${hash}`))

/** The mail's Message-ID header: `<id@domain>`, the domain the sender's (MAIL_FROM's) or the service's host. */
export const messageIdOf = (mail: MailMessage, domain: string): string => `<${mail.id}@${domain}>`
