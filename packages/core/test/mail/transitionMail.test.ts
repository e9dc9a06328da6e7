// A queued mail's release (mail/transitionMail.ts; docs/decisions.md, Mail delivery): a refusal waits a backoff that
// doubles from ADGATE_MAIL_RETRY's base up to 15 minutes; a mail given back untried is due at once.
import { assert, describe, it } from "@effect/vitest"
import { isMailDue, MailId, type MailMessage, refusalBackoffMs, transitionMail } from "@adgate/core"

const minute = 60_000
const queued: MailMessage = { id: MailId.make("mail_backoff"), to: "a@x.test", subject: "s", text: "t", createdAt: 0, sentAt: null, version: 0, attempt: 0, leaseUntil: null }

describe("a mail's release", () => {
  it("a refused mail waits its base, doubled with each refusal, at most 15 minutes", () => {
    assert.deepStrictEqual([1, 2, 3, 4].map((attempt) => refusalBackoffMs(attempt, 5_000)), [5_000, 10_000, 20_000, 40_000])
    assert.strictEqual(refusalBackoffMs(9, 5_000), 15 * minute)
    assert.strictEqual(refusalBackoffMs(1_000, 5_000), 15 * minute)
  })

  it("released after a refusal it is not due until its wait is over; released untried it is due at once", () => {
    const claimed = transitionMail(queued, { _tag: "Claim", leaseMs: 2 * minute }, 1_000).next!
    const refused = transitionMail(claimed, { _tag: "Release", attempt: claimed.attempt, waitMs: 5_000 }, 2_000).next!
    assert.isFalse(isMailDue(refused, 6_999))
    assert.isTrue(isMailDue(refused, 7_000))
    const untried = transitionMail(claimed, { _tag: "Release", attempt: claimed.attempt, waitMs: 0 }, 2_000).next!
    assert.isTrue(isMailDue(untried, 2_000))
  })
})
