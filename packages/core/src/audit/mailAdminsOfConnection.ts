// The e-mail every workspace admin receives when an app is connected (spec §What the service does 9, §Events):
// it names the app, the approver and the permissions, with a link to disconnect. Queued in the Mailer outbox.
import { Clock, Effect, Option } from "effect"
import type { MailMessage } from "./AuditEntry.ts"
import type { Client } from "../clients/Client.ts"
import type { Connection } from "../connections/Connection.ts"
import { formatScopes } from "../scopes/grant.ts"
import { Directory } from "../ports/Directory.ts"
import { Issuer } from "../ports/Issuer.ts"
import { Mailer } from "../ports/Outbox.ts"
import { Prefix, Secrets } from "../ports/Secrets.ts"
import type { User } from "../workspaces/Workspace.ts"

const surfaceText = { mcp: "the MCP server", rest: "the REST API", both: "the MCP server and the REST API" } as const

/** The app's name as people should read it: a self-given name is quoted, as on the consent page. */
export const appLabel = (client: Client): string =>
  client.recognised && client.name !== null ? client.name : `"${client.name ?? client.clientId}" (unverified app)`

export interface ConnectionMailRecipients {
  readonly admins: ReadonlyArray<User>
  readonly approver: User | null
  readonly workspaceName: string
}

/** Reads who must be told, before anything is spent: the Directory may be down (then the exchange answers 503). */
export const connectionMailRecipients = Effect.fn("audit.connectionMailRecipients")(function* (workspaceId: string, approverId: string) {
  const directory = yield* Directory
  const members = yield* directory.members(workspaceId)
  const approver = yield* directory.user(approverId)
  const workspace = yield* directory.workspace(workspaceId)
  return {
    admins: members.filter((m) => m.role === "admin").map((m) => m.user),
    approver: Option.getOrNull(approver),
    workspaceName: Option.match(workspace, { onNone: () => workspaceId, onSome: (w) => w.name })
  } satisfies ConnectionMailRecipients
})

export const composeConnectionMail = (
  connection: Connection, client: Client, recipients: ConnectionMailRecipients, issuer: string
): { readonly subject: string; readonly text: string } => {
  const app = appLabel(client)
  const approver = recipients.approver === null ? connection.approverId : `${recipients.approver.name} <${recipients.approver.email}>`
  const subject = `${app} was connected to ${recipients.workspaceName}`
  const text = [
    `${approver} connected ${app} to the workspace ${recipients.workspaceName}.`,
    `It connects to ${surfaceText[connection.surface]}.`,
    `Permissions: ${formatScopes(connection.scopes)}`,
    `Platforms: ${connection.platforms === "all" ? "all connected platforms, including ones connected later" : connection.platforms.join(", ") || "none"}`,
    `Writes: ${connection.writeMode === "wait" ? "each change waits for approval" : "ordinary changes apply at once"}`,
    "",
    `If this was not expected, disconnect it: ${issuer}/manage/connections`
  ].join("\n")
  return { subject, text }
}

export const mailAdminsOfConnection = Effect.fn("audit.mailAdminsOfConnection")(function* (
  connection: Connection, client: Client, recipients: ConnectionMailRecipients
) {
  const { origin } = yield* Issuer
  const mailer = yield* Mailer
  const secrets = yield* Secrets
  const now = yield* Clock.currentTimeMillis
  const { subject, text } = composeConnectionMail(connection, client, recipients, origin)
  const sent: Array<MailMessage> = []
  for (const admin of recipients.admins) {
    const mail: MailMessage = { id: yield* secrets.generate(Prefix.mail), to: admin.email, subject, text, createdAt: now, sentAt: null }
    yield* mailer.enqueue(mail)
    sent.push(mail)
  }
  return sent
})
