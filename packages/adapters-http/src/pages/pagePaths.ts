// The addresses of the management pages (docs/service.md, Pages): one place builds every link, so a page, a mail
// and a test name the same URL. Every workspace page carries its workspace in the path, so a link in a mail opens
// the right workspace whatever the reader's session was working in.
import type { WorkspaceId } from "@adgate/core"

const enc = encodeURIComponent

/** Query parameters with no empty value, in a stable order; "" when none. */
const query = (params: Readonly<Record<string, string | number | undefined>>): string => {
  const entries = Object.entries(params).filter((e): e is [string, string | number] => e[1] !== undefined && e[1] !== "")
  return entries.length === 0 ? "" : `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString()}`
}

export const pagePaths = {
  /** Where sign-in lands: the API & MCP page of the workspace the session works in. */
  home: "/",
  account: "/account",
  /** The account page's Change password form posts here. */
  accountPassword: "/account/password",
  /** The development mailbox (no SMTP_URL): the newest mail, and one message. */
  mailbox: "/mailbox",
  mailboxMessage: (mailId: string) => `/mailbox/${enc(mailId)}`,
  workspace: (ws: WorkspaceId | string) => `/workspaces/${enc(ws)}`,
  /** API & MCP: usage at a glance and Connected apps. */
  apiMcp: (ws: WorkspaceId | string) => `/workspaces/${enc(ws)}/api-mcp`,
  /** One row of Connected apps (a connection `con_…` or an API key `key_…`), with Disconnect and its audit trail. */
  connectedApp: (ws: WorkspaceId | string, id: string) => `/workspaces/${enc(ws)}/api-mcp/connected/${enc(id)}`,
  /** POST: Disconnect (a connection) or Revoke (an API key) of one Connected apps row. */
  endConnectedApp: (ws: WorkspaceId | string, id: string) => `/workspaces/${enc(ws)}/api-mcp/connected/${enc(id)}/end`,
  ownApps: (ws: WorkspaceId | string) => `/workspaces/${enc(ws)}/apps`,
  ownApp: (ws: WorkspaceId | string, clientId: string) => `/workspaces/${enc(ws)}/apps/${enc(clientId)}`,
  apiKeys: (ws: WorkspaceId | string) => `/workspaces/${enc(ws)}/keys`,
  approvals: (ws: WorkspaceId | string, filter: { readonly status?: string; readonly page?: number } = {}) =>
    `/workspaces/${enc(ws)}/approvals${query(filter)}`,
  approval: (ws: WorkspaceId | string, requestId: string) => `/workspaces/${enc(ws)}/approvals/${enc(requestId)}`,
  audit: (ws: WorkspaceId | string, filter: { readonly app?: string; readonly kind?: string; readonly page?: number } = {}) =>
    `/workspaces/${enc(ws)}/audit${query(filter)}`,
  settings: (ws: WorkspaceId | string) => `/workspaces/${enc(ws)}/settings`,
  /** Settings with a page of the credits ledger (1 is the newest). */
  settingsLedger: (ws: WorkspaceId | string, page: number) => `/workspaces/${enc(ws)}/settings${query({ page: page > 1 ? page : undefined })}`
} as const

/** The same address, absolute on `origin` (for mail). */
export const absolute = (origin: string, path: string): string => new URL(path, origin).toString()
