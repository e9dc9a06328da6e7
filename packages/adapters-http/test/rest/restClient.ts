// What a script (API key) and an AI host (OAuth access token through the real flow with oauth4webapi) do against the
// REST API of a test server: get a credential, then call /api/v1 with it.
import * as oauth from "oauth4webapi"
import { Effect } from "effect"
import { createApiKey, type Scope, type WriteMode, WorkspaceId, UserId } from "@adgate/core"
import type { TestServer } from "../support/testServer.ts"
import { connect, registerApp } from "../oauth/oauthClient.ts"

type WebServer = Omit<TestServer, "directory">

export interface RestAnswer {
  readonly status: number
  readonly headers: Headers
  readonly body: any
  readonly text: string
}

/** Every answer callRest saw (method, path without query, status): the OpenAPI test checks each is documented. */
export const observedAnswers: Array<{ readonly method: string; readonly path: string; readonly status: number }> = []

/** Calls /api/v1`path` with the bearer credential (none when null); JSON in, JSON (or text) out. */
export const callRest = async (
  server: WebServer,
  credential: string | null,
  method: string,
  path: string,
  options: { readonly body?: unknown; readonly rawBody?: string; readonly headers?: Record<string, string> } = {}
): Promise<RestAnswer> => {
  const headers: Record<string, string> = { ...options.headers }
  if (credential !== null) headers["authorization"] = `Bearer ${credential}`
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body))
  if (body !== undefined) headers["content-type"] ??= "application/json"
  const response = await server.fetch(`/api/v1${path}`, { method, headers, ...(body === undefined ? {} : { body }) })
  const text = await response.text()
  observedAnswers.push({ method, path: path.split("?")[0]!, status: response.status })
  let parsed: unknown = null
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = null
  }
  return { status: response.status, headers: response.headers, body: parsed, text }
}

export const restClient = (server: WebServer, credential: string | null) => ({
  get: (path: string, headers?: Record<string, string>) => callRest(server, credential, "GET", path, headers === undefined ? {} : { headers }),
  post: (path: string, body: unknown, headers?: Record<string, string>) =>
    callRest(server, credential, "POST", path, { body, ...(headers === undefined ? {} : { headers }) })
})

/** An API key of the paid workspace created by the admin (core createApiKey, as the CLI and the page do). */
export const createKey = (
  server: WebServer,
  options: { readonly scopes: ReadonlyArray<Scope>; readonly toolWrites?: WriteMode; readonly workspaceId?: WorkspaceId; readonly actorId?: UserId }
) =>
  server.run(createApiKey({
    workspaceId: options.workspaceId ?? server.workspaces.paid.id,
    actorId: options.actorId ?? server.users.admin.id,
    name: "rest test key",
    scopes: [...options.scopes],
    toolWrites: options.toolWrites ?? "apply"
  }).pipe(Effect.orDie)).then((created) => created.secret)

/**
 * An access token through the whole OAuth flow (a workspace app, the admin's consent, the code exchange) with
 * oauth4webapi. `resource` undefined sends none (the MCP server by default).
 */
export const obtainToken = async (
  server: WebServer,
  as: oauth.AuthorizationServer,
  cookie: string,
  options: { readonly scope: string; readonly resource: string | undefined; readonly writeMode?: "wait" | "apply" }
): Promise<string> => {
  const redirectUri = "https://host.example/cb"
  const app = await registerApp(server, { type: "public", redirectUris: [redirectUri], name: "REST host" })
  const { tokens } = await connect(server, as, {
    client: { client_id: app.client.clientId },
    auth: oauth.None(),
    redirectUri,
    cookie,
    scope: options.scope,
    ...(options.resource === undefined ? {} : { resource: options.resource }),
    // The person ticks exactly the scopes asked for (raw platform access is never pre-ticked).
    choice: { scopes: options.scope.split(" "), ...(options.writeMode === undefined ? {} : { writeMode: options.writeMode }) }
  })
  return tokens.access_token
}
