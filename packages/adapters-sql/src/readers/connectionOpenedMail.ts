// The words and the link of the e-mail every workspace admin receives when an app is connected (spec §What the
// service does 9, §Events): it names the app, the approver and the permissions, with a link to disconnect. The core
// only says that the connection opened (ConnectionOpened); the wording lives here.
import { formatScopes, type ConnectionOpened, type User } from "@adgate/core"

const surfaceText = { mcp: "the MCP server", rest: "the REST API", both: "the MCP server and the REST API" } as const

/** The app as people should read it: a self-given name is quoted, as on the consent page. */
export interface MailApp {
  readonly clientId: string
  readonly name: string | null
  readonly recognised: boolean
}
export const appLabel = (app: MailApp): string =>
  app.recognised && app.name !== null ? app.name : `"${app.name ?? app.clientId}" (unverified app)`

export interface ConnectionMailFacts {
  readonly app: MailApp
  /** The approver as the Directory knows them, null when it no longer does. */
  readonly approver: User | null
  readonly workspaceName: string
}

export const composeConnectionMail = (
  event: typeof ConnectionOpened.Type, facts: ConnectionMailFacts, issuer: string
): { readonly subject: string; readonly text: string } => {
  const app = appLabel(facts.app)
  const approver = facts.approver === null ? event.approverId : `${facts.approver.name} <${facts.approver.email}>`
  const subject = `${app} was connected to ${facts.workspaceName}`
  const text = [
    `${approver} connected ${app} to the workspace ${facts.workspaceName}.`,
    `It connects to ${surfaceText[event.surface]}.`,
    `Permissions: ${formatScopes(event.scopes)}`,
    `Platforms: ${event.platforms === "all" ? "all connected platforms, including ones connected later" : event.platforms.join(", ") || "none"}`,
    `Writes: ${event.writeMode === "wait" ? "each change waits for approval" : "ordinary changes apply at once"}`,
    "",
    `If this was not expected, disconnect it: ${issuer}/manage/connections`
  ].join("\n")
  return { subject, text }
}
