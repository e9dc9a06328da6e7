// The mail to the connecting person when a change waits for approval (spec §Events): the tool, what would change
// (ProposedChange.summary), who can decide (the workspace's admins and editors, by name) and where, the request id,
// its status URL and when it expires. The outbox's mail reader composes it from the WriteQueued event.
import { ChangeWaitingMail, Directory, Issuer, type ChangeWaiting } from "@adgate/core"
import { Effect, Layer } from "effect"

const whyItWaits = (reason: ChangeWaiting["reason"]): string =>
  reason === "person_decision"
    ? "This kind of change (a delete, an activation, code for a website, or what the platform marks so) is always a person's decision."
    : "The connection or API key that asked for it waits for approval before changes are made."

/** The subject and text of the mail, given the people who can decide and the service's origin. Pure. */
export const changeWaitsMail = (event: ChangeWaiting, deciders: ReadonlyArray<string>, origin: string) => ({
  subject: `Approval needed: ${event.toolTitle} (${event.requestId})`,
  text: [
    `Hello ${event.recipient.name},`,
    "",
    "A change asked for with your connection or API key waits for approval:",
    "",
    `  ${event.summary}`,
    "",
    `Tool: ${event.toolTitle} (${event.tool})`,
    `Why it waits: ${whyItWaits(event.reason)}`,
    `Who can decide: a workspace admin or editor${deciders.length === 0 ? "" : ` (${deciders.join(", ")})`}.`,
    `Where: Write approvals in adgate, by request id ${event.requestId} (for now with the adgate CLI's requests commands).`,
    `Status: ${origin}/api/v1/requests/${event.requestId}`,
    `Unanswered, it expires on ${new Date(event.expiresAt).toISOString().slice(0, 16).replace("T", " ")} UTC.`
  ].join("\n")
})

/** ChangeWaitingMail with the words above; names the workspace's admins and editors from the Directory. */
export const ChangeWaitingMailText = Layer.effect(ChangeWaitingMail, Effect.gen(function* () {
  const directory = yield* Directory
  const origin = (yield* Issuer).origin
  return {
    compose: (event: ChangeWaiting) => Effect.map(directory.members(event.workspaceId), (members) =>
      changeWaitsMail(event, members.filter((m) => m.role === "admin" || m.role === "editor").map((m) => `${m.user.name} <${m.user.email}>`), origin))
  }
}))
