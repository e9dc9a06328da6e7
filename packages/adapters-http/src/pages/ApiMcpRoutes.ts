// The API & MCP page (where sign-in lands) and one Connected apps row's page with its Disconnect / Revoke post
// (docs/service.md, Pages; spec §What the service does 5). Reads go through the core's connectedApps services; ending a
// row is endConnectedApp (mayEnd decides who may). `GET /workspaces/:workspaceId` opens the workspace's API & MCP page.
import { Clock, Effect } from "effect"
import { HttpRouter } from "effect/http"
import {
  type ConnectedAppNotFound, endConnectedApp, findConnectedApp, listConnectedApps, listPendingWriteRequests, type NotAllowedToEnd,
  peopleOf, ToolUsageLog, usageWindow, UserId, WriteRequestStore
} from "@adgate/core"
import { type PortsOf, withPorts } from "@adgate/answers"
import { corePortServices } from "../oauth/CorePorts.ts"
import { People } from "../people/People.ts"
import { RequestId } from "../security.ts"
import { apiMcpBody, connectedAppBody } from "./apiMcpView.ts"
import { renderErrorPage, seeOther } from "./layout.ts"
import { pagePaths } from "./pagePaths.ts"
import { doneAndBack, noticeOf, renderWorkspacePage, withWorkspace, withWorkspaceForm, type WorkspaceView } from "./workspaceFrame.ts"

/** The ports the page's core services run on, and the frame's People, captured when the routes are built. */
const apiMcpPortServices = [...corePortServices, ToolUsageLog, WriteRequestStore, People] as const

/** How many audit entries a row's page shows; the audit log has them all. */
const auditTrailLength = 50

/** The refusals of a row's pages, one row per core error (a missing or extra row does not compile). */
export const connectedAppPageErrors = {
  ConnectedAppNotFound: () => ({ status: 404, title: "No such connected app", message: "This workspace has no connection or API key with this id." }),
  NotAllowedToEnd: (view) => ({
    status: 403, title: "Not allowed",
    message: view.role === "viewer"
      ? `A viewer cannot disconnect apps or revoke keys in ${view.workspace.name}.`
      : "An editor can disconnect only the apps they approved and revoke only the keys they created. Ask a workspace admin."
  })
} as const satisfies Record<(ConnectedAppNotFound | NotAllowedToEnd)["_tag"], (view: WorkspaceView) => { readonly status: number; readonly title: string; readonly message: string }>

const rowRefusal = (view: WorkspaceView, error: ConnectedAppNotFound | NotAllowedToEnd) =>
  Effect.map(Effect.service(RequestId), (requestId) =>
    renderErrorPage({ ...connectedAppPageErrors[error._tag](view), requestId, returnTo: pagePaths.apiMcp(view.workspace.id) }))

export const ApiMcpRoutes = HttpRouter.use((router) =>
  Effect.gen(function* () {
    // Captured here, so that the frame's per-request `People` and the services' ports are no requirement of a request.
    const ports = withPorts(apiMcpPortServices, yield* Effect.context<PortsOf<typeof apiMcpPortServices>>())
    const rowId = Effect.map(HttpRouter.params, (params) => params["id"] ?? "")

    yield* router.add("GET", "/workspaces/:workspaceId", () =>
      withWorkspace((view) => Effect.succeed(seeOther(pagePaths.apiMcp(view.workspace.id)))).pipe(ports))

    const apiMcpPage = Effect.fnUntraced(function* (view: WorkspaceView) {
      const window = usageWindow(yield* Clock.currentTimeMillis)
      const [overview, waiting] = yield* Effect.all([
        listConnectedApps(view.workspace.id, window),
        Effect.map(listPendingWriteRequests(view.workspace.id), (pending) => pending.length)
      ], { concurrency: "unbounded" })
      return renderWorkspacePage({
        view, section: "api-mcp", title: "API & MCP", body: apiMcpBody(view, { overview, waiting }, noticeOf(view.person))
      })
    })

    yield* router.add("GET", "/workspaces/:workspaceId/api-mcp", () =>
      withWorkspace((view) => apiMcpPage(view)).pipe(ports))

    const connectedAppPage = Effect.fnUntraced(function* (view: WorkspaceView) {
      const window = usageWindow(yield* Clock.currentTimeMillis)
      const detail = yield* findConnectedApp(view.workspace.id, yield* rowId, window, auditTrailLength)
      const actors = yield* peopleOf(view.workspace.id, detail.audit.flatMap((e) => (e.actorId === null ? [] : [UserId.make(e.actorId)])))
      return renderWorkspacePage({
        view, section: "api-mcp", title: detail.app.kind === "api_key" ? "API key" : "Connected app",
        body: connectedAppBody(view, detail, actors, noticeOf(view.person))
      })
    })

    yield* router.add("GET", "/workspaces/:workspaceId/api-mcp/connected/:id", () =>
      withWorkspace((view) => connectedAppPage(view).pipe(Effect.catchTag("ConnectedAppNotFound", (e) => rowRefusal(view, e)))).pipe(ports))

    const endConnectedPost = Effect.fnUntraced(function* (view: WorkspaceView) {
      const id = yield* rowId
      const ended = yield* endConnectedApp({ workspaceId: view.workspace.id, id, actorId: view.person.user.id })
      const notice = ended.kind === "api_key"
        ? (ended.endedNow ? "Revoked: the key no longer works." : "This key was already revoked.")
        : (ended.endedNow ? "Disconnected: its tokens no longer work." : "This connection had already ended.")
      return yield* doneAndBack(pagePaths.connectedApp(view.workspace.id, id), notice)
    })

    yield* router.add("POST", "/workspaces/:workspaceId/api-mcp/connected/:id/end", () =>
      withWorkspaceForm((view) => endConnectedPost(view).pipe(Effect.catchTags({
          ConnectedAppNotFound: (e) => rowRefusal(view, e),
          NotAllowedToEnd: (e) => rowRefusal(view, e)
        }))).pipe(ports))
  })
)
