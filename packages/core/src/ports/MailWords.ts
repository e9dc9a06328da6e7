// The words of every mail the service sends (spec §Events: "E-mails go to workspace admins when an app is connected,
// and to the connecting person when a change waits for approval"). The core says what happened (ConnectionOpened,
// WriteQueued); the mail reader (adapters-sql/src/readers/mailReader.ts) decides who gets what and gathers the
// facts below; this port turns the facts into a subject and a text, one method per message. The words live beside
// the pages' words (adapters-http/src/mail/mailWords.ts), so a mail's links are the pages' own addresses; the server
// provides them. The default, for embedding and tests that do not read the words, lists the facts plainly.
import { Context } from "effect"
import type { WaitReason, WriteRequestId } from "../approvals/WriteRequest.ts"
import type { ConnectionId } from "../connections/Connection.ts"
import type { PlatformChoice, Scope, Surface, WriteMode } from "../scopes/Scope.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"

/** A person a mail names or is sent to. */
export interface MailPerson {
  readonly email: string
  readonly name: string
}

/** The app of a connection, as the people should read it. */
export interface MailApp {
  readonly clientId: string
  /** The verified product's name when `verified`, else the client's self-given name (null when it gave none). */
  readonly name: string | null
  readonly verified: boolean
  /** For an unverified metadata-document client, the host serving its document; otherwise null (appIdentity). */
  readonly documentHost: string | null
}

/** An app was connected to a workspace: what each of its admins is told. */
export interface AppConnectedFacts {
  readonly recipient: MailPerson
  readonly workspace: { readonly id: WorkspaceId; readonly name: string }
  readonly connectionId: ConnectionId
  readonly app: MailApp
  /** The person who approved it; null when the Directory no longer knows them (then `approverId` names them). */
  readonly approver: MailPerson | null
  readonly approverId: string
  readonly scopes: ReadonlyArray<Scope>
  readonly surface: Surface
  readonly platforms: PlatformChoice
  readonly writeMode: WriteMode
}

/** A write was queued for a person: what the connecting person is told. */
export interface ChangeWaitingFacts {
  /** The connecting person: the connection's approver or the API key's creator. */
  readonly recipient: MailPerson
  readonly workspace: { readonly id: WorkspaceId; readonly name: string }
  readonly requestId: WriteRequestId
  readonly tool: string
  readonly toolTitle: string
  /** ProposedChange.summary: one line saying what would change. */
  readonly summary: string
  readonly reason: WaitReason
  readonly expiresAt: number
  /** The workspace's admins and editors: who can decide. */
  readonly deciders: ReadonlyArray<MailPerson>
}

/** A composed mail: its subject and plain text. */
export interface MailText {
  readonly subject: string
  readonly text: string
}

export interface MailWordsShape {
  readonly appConnected: (facts: AppConnectedFacts) => MailText
  readonly changeWaiting: (facts: ChangeWaitingFacts) => MailText
}

export const MailWords = Context.Reference<MailWordsShape>("core/ports/MailWords", {
  defaultValue: () => ({
    appConnected: (facts) => ({
      subject: `App connected to ${facts.workspace.name}: ${facts.app.name ?? facts.app.clientId}`,
      text: `Connection ${facts.connectionId}, approved by ${facts.approver?.email ?? facts.approverId}, scopes ${facts.scopes.join(" ")}.`
    }),
    changeWaiting: (facts) => ({
      subject: `A change waits for approval: ${facts.toolTitle}`,
      text: `${facts.summary}\n\nRequest ${facts.requestId} in ${facts.workspace.name}.`
    })
  })
})
