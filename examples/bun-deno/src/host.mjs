// The host every runtime serves: adgate on PGlite in a fresh folder, with a directory of one workspace and its admin,
// a signed-in person told by one session cookie, and one platform with one read tool. Plain JavaScript, so that Node
// 20, Bun and Deno all run it as it is.
import { createAdgate } from "adgate"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

export const session = "host_session=s3cr3t-session-of-ada"
const ada = { id: "u-ada", email: "ada@host.example", name: "Ada" }
const workspace = { id: "w-host", name: "Host", plan: "paid" }

const tool = {
  name: "demo__list_campaigns", family: "demo", kind: "read", raw: false, credits: 0, personDecision: false,
  summary: "List the campaigns", description: "Every campaign of the workspace.", keywords: [],
  inputSchema: { type: "object", properties: {}, additionalProperties: false }, outputSchema: null,
  annotations: { title: "List campaigns", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
}

/** adgate for the host at `origin`. */
export const makeAdgate = (origin) => createAdgate({
  baseUrl: origin,
  database: { pglite: mkdtempSync(join(tmpdir(), "adgate-runtime-")) },
  log: "none",
  directory: {
    user: async (id) => (id === ada.id ? ada : null),
    userByEmail: async (email) => (email === ada.email ? ada : null),
    workspace: async (id) => (id === workspace.id ? workspace : null),
    role: async (workspaceId, userId) => (workspaceId === workspace.id && userId === ada.id ? "admin" : null),
    workspacesOf: async (userId) => (userId === ada.id ? [{ workspace, role: "admin" }] : []),
    members: async (workspaceId) => (workspaceId === workspace.id ? [{ user: ada, role: "admin" }] : [])
  },
  signIn: {
    current: async (request) => (request.cookies["host_session"] === session.split("=")[1] ? { userId: ada.id, sessionKey: session } : null),
    signInUrl: (returnTo) => `/login?return_to=${encodeURIComponent(returnTo)}`,
    signOutUrl: "/logout"
  },
  platforms: {
    families: [{ id: "demo", name: "Demo Ads", kind: "ads" }],
    tools: [tool],
    accounts: async () => [{ platform: "demo", id: "demo-1", name: "Demo", status: "ACTIVE" }],
    preview: async () => { throw new Error("no writes") },
    execute: async () => ({ providerStatus: 200, body: { campaigns: [{ id: "c-1", name: "Brand", dailyBudget: 100 }] } })
  }
})
