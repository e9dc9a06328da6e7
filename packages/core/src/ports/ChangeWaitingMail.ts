// What the connecting person is told when a change waits for approval (spec §Events: "E-mails go … to the connecting
// person when a change waits for approval"). The core says what happened (the WriteQueued event); the mail reader
// (adapters-sql/src/readers/mailReader.ts) turns it into ChangeWaiting and queues the mail this port composes; the
// words are the composition's (apps/server/src/mail/changeWaitsMail.ts names who can decide and where). The default,
// for embedding and tests, is a plain mail with the same facts.
import { Context, Effect } from "effect"
import type { WaitReason, WriteRequestId } from "../approvals/WriteRequest.ts"
import type { DirectoryUnavailable } from "./Directory.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"

/** A write was queued for a person: the facts a mail about it needs. */
export interface ChangeWaiting {
  readonly workspaceId: WorkspaceId
  readonly requestId: WriteRequestId
  readonly tool: string
  readonly toolTitle: string
  /** ProposedChange.summary: one line saying what would change. */
  readonly summary: string
  readonly reason: WaitReason
  readonly expiresAt: number
  /** The connecting person: the connection's approver or the API key's creator. */
  readonly recipient: { readonly email: string; readonly name: string }
}

export interface ChangeWaitingMailShape {
  readonly compose: (event: ChangeWaiting) => Effect.Effect<{ readonly subject: string; readonly text: string }, DirectoryUnavailable>
}

export const ChangeWaitingMail = Context.Reference<ChangeWaitingMailShape>("core/ports/ChangeWaitingMail", {
  defaultValue: () => ({
    compose: (event) => Effect.succeed({
      subject: `A change waits for approval: ${event.toolTitle}`,
      text: `${event.summary}\n\nA workspace admin or editor decides it (request ${event.requestId}). Unanswered, it expires in 7 days.`
    })
  })
})
