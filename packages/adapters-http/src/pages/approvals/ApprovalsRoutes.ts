// The Write approvals page (docs/service.md, Pages: Write approvals; spec §What the service does 6): the writes
// waiting for a person, oldest first, each with what it would change (before → after from the platform's preview),
// the account, who asked through which app, why it waits, the guardrails it is checked against and when it expires;
// Approve (runs it at once through the core's decideAndExecute) and Decline; below, the requests no longer waiting,
// filterable by outcome and paged. Only a workspace admin or editor decides, only here with a signed-in session and
// a CSRF-checked form (never with an API credential); a viewer reads.
import { Clock, Effect, Schema } from "effect"
import { HttpRouter, type HttpServerRequest, type UrlParams } from "effect/http"
import {
  ApiKeyStore, ClientStore, ConnectionStore, CreditsLedger, decideAndExecute, Directory, EventOutbox, findWriteRequest, type Guardrails, GuardrailStore,
  listPendingWriteRequests, outcomeOfWriteRequest, Platforms, Secrets, ToolUsageLog, Transactor, WriteRequestId, numberedPage, WriteRequestOutcome,
  WriteRequestStore
} from "@adgate/core"
import { withPorts } from "@adgate/answers"
import { RequestId } from "../../security.ts"
import { People } from "../../people/People.ts"
import { clientLabel } from "../appLabel.ts"
import { formatWhen } from "../formatting.ts"
import { html, type Html, renderErrorPage } from "../layout.ts"
import { pagePaths } from "../pagePaths.ts"
import {
  doneAndBack, formField, noticeOf, renderWorkspacePage, requireRole, withWorkspace, withWorkspaceForm, type WorkspaceView
} from "../workspaceFrame.ts"
import { factsOf, pendingFactsOf, type PendingFacts, type RequestFacts, type RequestingApp } from "./approvalFacts.ts"

/** How many waiting requests the page previews at once (each preview reads the platform), and history rows a page. */
export const pendingShown = 25
export const historyPageSize = 20
/** The last history page one can ask for: beyond it, narrow by outcome. */
export const maxHistoryPage = 500

const roles = ["admin", "editor"] as const

const money = (n: number): string => n.toFixed(2)

/** How long until `at`, in words: "in 6 days", "in 3 hours", "in 12 minutes", or "now". */
const inWords = (at: number, now: number): string => {
  const minutes = Math.floor((at - now) / 60_000)
  if (minutes <= 0) return "now"
  if (minutes < 120) return `in ${minutes} minute${minutes === 1 ? "" : "s"}`
  const hours = Math.floor(minutes / 60)
  if (hours < 48) return `in ${hours} hours`
  return `in ${Math.floor(hours / 24)} days`
}

/** The outcomes' labels, one per outcome (a missing one does not compile). */
export const outcomeLabels = {
  approved: "Approved, not run yet",
  executed: "Executed",
  failed: "Failed",
  rejected: "Declined",
  withdrawn: "Withdrawn",
  expired: "Expired"
} as const satisfies Record<WriteRequestOutcome, string>

const outcomeBadge = (facts: RequestFacts): Html => {
  const outcome = outcomeOfWriteRequest(facts.request)
  return outcome === null
    ? html`<span class="badge pending_approval">Waiting</span>`
    : html`<span class="badge ${outcome}">${outcomeLabels[outcome]}</span>`
}

export const appWords = (app: RequestingApp): Html => {
  switch (app.kind) {
    case "connection":
      return html`${app.client === null ? html`<span class="muted">an app no longer known</span>` : clientLabel(app.client)} <span class="muted">(connection ${app.id})</span>`
    case "api_key": return html`API key <strong>“${app.name ?? app.id}”</strong> <span class="muted">(${app.id})</span>`
    case "unknown": return html`<span class="muted">an unknown app</span>`
  }
}

const whoAsked = (facts: RequestFacts): Html =>
  html`${facts.requester === null ? html`<span class="muted">someone no longer known</span>` : facts.requester.name} through ${appWords(facts.app)}`

const whyItWaits = (facts: RequestFacts): Html => {
  if (facts.request.reason === "person_decision")
    return html`A person's decision: deletes, activations, website code and changes the platform cannot read always wait for a person, whatever the app's setting.`
  return facts.app.kind === "api_key"
    ? html`The API key's Tool writes setting is “Wait for approval”.`
    : html`The connection's write setting is “Wait for approval”.`
}

const toolWords = (facts: RequestFacts): Html =>
  facts.tool === null
    ? html`<code>${facts.request.tool}</code>`
    : html`${facts.tool.annotations.title} <span class="muted"><code>${facts.tool.name}</code></span>`

/** The guardrails a change is checked against (when queued, and again when it runs), as sentences. */
const guardrailLines = (guardrails: Guardrails | null): ReadonlyArray<string> => {
  if (guardrails === null) return []
  const lines: Array<string> = []
  if (guardrails.maxBudgetChangePercent !== null) lines.push(`Change cap: a daily budget changes by at most ${guardrails.maxBudgetChangePercent} % at once.`)
  if (guardrails.maxChangesPerDay !== null) lines.push(`Change cap: at most ${guardrails.maxChangesPerDay} changes per day in the workspace.`)
  if (guardrails.maxDailyBudgetPerAccount !== null) lines.push(`Spend cap: an account's total daily budget stays at or below ${money(guardrails.maxDailyBudgetPerAccount)}.`)
  if (guardrails.protectedNames.length > 0) lines.push(`Protected names: ${guardrails.protectedNames.join(", ")} cannot be changed.`)
  return lines
}

/** Before → after, where the platform's preview can tell. */
const changeRows = (facts: PendingFacts): Html => {
  const { change } = facts
  if (change === null) return html`<p class="warning">${facts.previewProblem}</p>`
  return html`<p>${change.summary}</p>
<dl class="change">
${change.target === null ? "" : html`<dt>Changes</dt><dd>${change.target.type} “${change.target.name}”${change.target.id === null ? "" : html` <span class="muted">(${change.target.id})</span>`}</dd>`}
${change.dailyBudget === null ? "" : html`<dt>Daily budget</dt><dd class="before-after"><span>${money(change.dailyBudget.from)}</span> → <strong>${money(change.dailyBudget.to)}</strong></dd>`}
${change.status === null ? "" : html`<dt>Status</dt><dd class="before-after"><span>${change.status.from}</span> → <strong>${change.status.to}</strong></dd>`}
${change.accountDailyBudgetBefore === null || change.accountDailyBudgetAfter === null ? "" : html`<dt>Account's total daily budget</dt><dd class="before-after"><span>${money(change.accountDailyBudgetBefore)}</span> → <strong>${money(change.accountDailyBudgetAfter)}</strong></dd>`}
</dl>`
}

const decisionForms = (view: WorkspaceView, facts: PendingFacts): Html => {
  const { request } = facts
  if (!(roles as ReadonlyArray<string>).includes(view.role))
    return html`<p class="muted">Only a workspace admin or editor decides; you are ${view.role}.</p>`
  const csrf = html`<input type="hidden" name="csrf_token" value="${view.person.csrfToken}">`
  return html`<div class="actions">
<form method="post" action="${approvalPaths.approve(view.workspace.id, request.id)}">
${csrf}
<input type="hidden" name="arguments_hash" value="${request.argumentsHash}">
<button type="submit">Approve and run</button>
</form>
<form method="post" action="${approvalPaths.decline(view.workspace.id, request.id)}">
${csrf}
<button type="submit" class="danger">Decline</button>
</form>
</div>`
}

/** One waiting request as a card: everything a person needs to decide, and the two buttons. */
const pendingCard = (view: WorkspaceView, facts: PendingFacts, now: number, heading: "h2" | "h3"): Html => {
  const { request } = facts
  const lines = guardrailLines(facts.guardrails)
  const title = html`<a href="${pagePaths.approval(view.workspace.id, request.id)}">${facts.tool?.annotations.title ?? request.tool}</a>`
  return html`<section class="card pending-request" id="${request.id}">
${heading === "h2" ? html`<h2>${title}</h2>` : html`<h3>${title}</h3>`}
${changeRows(facts)}
<dl class="facts">
<dt>Tool</dt><dd>${toolWords(facts)}</dd>
<dt>Account</dt><dd>${facts.account === null
  ? html`<span class="muted">${facts.change?.accountId ?? (typeof request.arguments["accountId"] === "string" ? request.arguments["accountId"] : "not named")}</span>`
  : html`${facts.account.name} <span class="muted">(${facts.account.platform} ${facts.account.id})</span>`}</dd>
<dt>Asked by</dt><dd>${whoAsked(facts)}, ${formatWhen(request.createdAt)}</dd>
<dt>Why it waits</dt><dd>${whyItWaits(facts)}</dd>
<dt>Guardrails</dt><dd>${lines.length === 0
  ? html`The workspace has no guardrails set.`
  : html`<ul class="plain">${lines.map((l) => html`<li>${l}</li>`)}</ul>`}
${facts.guardrailRefusal === null
  ? (facts.change === null ? "" : html`<p class="muted">It passes them now; they are checked again when it runs.</p>`)
  : html`<p class="alert">It would be refused now: ${facts.guardrailRefusal}</p>`}</dd>
<dt>Expires</dt><dd>${formatWhen(request.expiresAt)} (${inWords(request.expiresAt, now)}); unanswered, it is not applied.</dd>
</dl>
${decisionForms(view, facts)}
</section>`
}

/** The platform's answer, as it came (JSON, escaped), shortened. */
const answerOf = (result: unknown): Html => {
  if (result === null || result === undefined) return html``
  const text = JSON.stringify(result, null, 2)
  return html`<pre class="answer">${text.length > 4000 ? `${text.slice(0, 4000)}\n…` : text}</pre>`
}

const historyRow = (view: WorkspaceView, facts: RequestFacts): Html => {
  const { request } = facts
  return html`<tr>
<td>${outcomeBadge(facts)}</td>
<td><a href="${pagePaths.approval(view.workspace.id, request.id)}">${facts.tool?.annotations.title ?? request.tool}</a></td>
<td>${whoAsked(facts)}</td>
<td>${facts.decider?.name ?? html`<span class="muted">—</span>`}</td>
<td class="num">${request.providerStatus ?? "—"}</td>
<td>${formatWhen(request.updatedAt)}</td>
</tr>`
}

/** The history's filter (outcome) and page, from the query; a value the page does not know is refused. */
const decodeOutcome = Schema.decodeUnknownOption(WriteRequestOutcome)
export const historyQuery = (request: HttpServerRequest.HttpServerRequest) => {
  const params = new URL(request.url, "http://x").searchParams
  const status = params.get("status") ?? ""
  const page = params.get("page") ?? "1"
  const outcome = status === "" ? null : decodeOutcome(status)
  // Fixed words: nothing of the URL is said on the page (a link cannot put a sentence of its own there).
  if (outcome !== null && outcome._tag === "None") return { problem: "There is no such status to filter by." } as const
  if (!/^[1-9][0-9]{0,5}$/.test(page) || Number(page) > maxHistoryPage)
    return { problem: `The page must be a number from 1 to ${maxHistoryPage}.` } as const
  return { outcome: outcome === null ? null : outcome.value, page: Number(page) } as const
}

const historyFilter = (view: WorkspaceView, outcome: WriteRequestOutcome | null): Html =>
  html`<form method="get" action="${pagePaths.approvals(view.workspace.id)}" class="actions filter">
<label for="status">Status</label>
<select id="status" name="status">
<option value="">All</option>
${WriteRequestOutcome.literals.map((o) => html`<option value="${o}"${o === outcome ? html` selected` : ""}>${outcomeLabels[o]}</option>`)}
</select>
<button type="submit" class="secondary small">Show</button>
</form>`

const pager = (previous: string | null, next: string | null): Html =>
  previous === null && next === null ? html`` : html`<nav class="actions pager" aria-label="Pages">
${previous === null ? "" : html`<a class="button secondary small" href="${previous}" rel="prev">Newer</a>`}
${next === null ? "" : html`<a class="button secondary small" href="${next}" rel="next">Older</a>`}
</nav>`

const listPage = Effect.fnUntraced(function* (view: WorkspaceView, request: HttpServerRequest.HttpServerRequest) {
  const query = historyQuery(request)
  if ("problem" in query) {
    const requestId = yield* Effect.service(RequestId)
    return renderErrorPage({ status: 400, title: "This filter is not valid", message: query.problem, returnTo: pagePaths.approvals(view.workspace.id), requestId })
  }
  const now = yield* Clock.currentTimeMillis
  const pending = yield* listPendingWriteRequests(view.workspace.id)
  const shown = yield* Effect.flatMap(factsOf(pending.slice(0, pendingShown)), (all) => Effect.forEach(all, pendingFactsOf, { concurrency: 4 }))
  const rows = yield* (yield* WriteRequestStore).listDecided(view.workspace.id, query.outcome, numberedPage(query.page, historyPageSize))
  const history = yield* factsOf(rows.slice(0, historyPageSize))
  const at = (page: number) => pagePaths.approvals(view.workspace.id, { ...(query.outcome === null ? {} : { status: query.outcome }), ...(page === 1 ? {} : { page }) })
  return renderWorkspacePage({
    view, section: "approvals", title: "Write approvals",
    body: html`${noticeOf(view.person)}
<section aria-labelledby="waiting">
<h2 id="waiting">Waiting for a decision <span class="badge ${pending.length === 0 ? "neutral" : "pending_approval"}">${pending.length}</span></h2>
${pending.length === 0
  ? html`<p class="muted">No change is waiting. Changes an app proposes under “Wait for approval”, and changes that always need a person, appear here.</p>`
  : html`<p class="muted">Oldest first. Approve runs the change on the platform at once; Decline drops it. Nothing is applied without a decision.</p>
${shown.map((facts) => pendingCard(view, facts, now, "h3"))}
${pending.length > shown.length ? html`<p class="muted">${pending.length - shown.length} more waiting: decide these first, or open one from its mail.</p>` : ""}`}
</section>
<section aria-labelledby="decided" class="card">
<h2 id="decided">Decided and ended</h2>
${historyFilter(view, query.outcome)}
${history.length === 0
  ? html`<p class="muted">${query.page === 1 ? "Nothing here yet." : "No more requests."}</p>`
  : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Status</th><th scope="col">Change</th><th scope="col">Asked by</th><th scope="col">Decided by</th><th scope="col" class="num">Platform status</th><th scope="col">Last moved</th></tr></thead>
<tbody>${history.map((facts) => historyRow(view, facts))}</tbody>
</table></div>`}
${pager(query.page > 1 ? at(query.page - 1) : null, rows.length > historyPageSize && query.page < maxHistoryPage ? at(query.page + 1) : null)}
</section>`
  })
})

const detailPage = Effect.fnUntraced(function* (view: WorkspaceView, requestId: WriteRequestId) {
  const found = yield* findWriteRequest(view.workspace.id, requestId).pipe(Effect.result)
  if (found._tag === "Failure") return yield* notFound(view)
  const [facts] = yield* factsOf([found.success])
  if (facts === undefined) return yield* notFound(view)
  const { request: wr } = facts
  const title = facts.tool?.annotations.title ?? wr.tool
  if (wr.status === "pending_approval") {
    const pending = yield* pendingFactsOf(facts)
    return renderWorkspacePage({
      view, section: "approvals", title,
      body: html`${noticeOf(view.person)}<p><a href="${pagePaths.approvals(view.workspace.id)}">← All write approvals</a></p>
${pendingCard(view, pending, yield* Clock.currentTimeMillis, "h2")}`
    })
  }
  const outcome = outcomeOfWriteRequest(wr)
  return renderWorkspacePage({
    view, section: "approvals", title,
    body: html`${noticeOf(view.person)}<p><a href="${pagePaths.approvals(view.workspace.id)}">← All write approvals</a></p>
<section class="card">
<h2>${outcomeBadge(facts)} <span class="visually-hidden">Status: </span>${outcome === null ? "" : outcomeLabels[outcome]}</h2>
<dl class="facts">
<dt>Tool</dt><dd>${toolWords(facts)}</dd>
<dt>Asked by</dt><dd>${whoAsked(facts)}, ${formatWhen(wr.createdAt)}</dd>
<dt>Why it waited</dt><dd>${whyItWaits(facts)}</dd>
${wr.decidedAt === null ? "" : html`<dt>Decided</dt><dd>${facts.decider?.name ?? (outcome === "withdrawn" ? "withdrawn for the app that asked" : "—")}, ${formatWhen(wr.decidedAt)}</dd>`}
<dt>Platform status</dt><dd class="provider-status">${wr.providerStatus ?? html`<span class="muted">the platform was not called</span>`}</dd>
<dt>Last moved</dt><dd>${formatWhen(wr.updatedAt)}</dd>
</dl>
${wr.result === null ? "" : html`<h3>The platform's answer</h3>${answerOf(wr.result)}`}
</section>`
  })
})

const notFound = (view: WorkspaceView) =>
  Effect.map(Effect.service(RequestId), (requestId) => renderErrorPage({
    status: 404, title: "No such write request", message: "This write request does not exist in this workspace.",
    returnTo: pagePaths.approvals(view.workspace.id), requestId
  }))

/** The POST addresses of the two decisions. */
export const approvalPaths = {
  approve: (ws: string, id: string) => `${pagePaths.approval(ws, id)}/approve`,
  decline: (ws: string, id: string) => `${pagePaths.approval(ws, id)}/decline`
}

interface DecisionRow { readonly status: number; readonly title: string; readonly message: string }

type DecisionFailure = Effect.Error<ReturnType<typeof decideAndExecute>>

const nothingChanged = "Your decision changed nothing."
const unavailable = (): DecisionRow => ({
  status: 503, title: "Temporarily unavailable", message: "The service could not answer just now: nothing was decided. Please try again in a moment."
})

/**
 * Every refusal of a decision as the page answers it (one row each; a missing or extra row does not compile). A
 * stale decision (decided by someone else, run, expired) says what happened instead, and changed nothing.
 */
export const decisionRefusals = {
  WriteRequestNotFound: () => ({ status: 404, title: "No such write request", message: "This write request does not exist in this workspace." }),
  WriteRequestNotPending: (e) => ({
    status: 409, title: "Already decided",
    message: `This change no longer waits: it is ${e.status === "rejected" ? "declined or withdrawn" : e.status.replace("_", " ")}, decided by someone else or in another tab. ${nothingChanged}`
  }),
  WriteRequestNotApproved: (e) => ({
    status: 409, title: "Already decided", message: `This change is ${e.status.replace("_", " ")} already. ${nothingChanged}`
  }),
  WriteRequestExecutionHeld: () => ({
    status: 409, title: "Running", message: `This change is being run just now by another decision. ${nothingChanged}`
  }),
  Conflict: () => ({
    status: 409, title: "Decided at the same moment", message: `Someone decided this change at the same moment. ${nothingChanged} Reload the page to see the outcome.`
  }),
  WriteRequestExpired: () => ({
    status: 409, title: "Expired", message: `This change waited past its deadline and has expired: it was not applied. ${nothingChanged}`
  }),
  WriteRequestNotDue: () => ({ status: 409, title: "Still waiting", message: `This change is still waiting. ${nothingChanged}` }),
  RequesterEnded: () => ({
    status: 409, title: "The app that asked is gone",
    message: "The connection or API key that asked for this change has ended, so it cannot be approved: it was withdrawn and nothing was applied."
  }),
  WriteRequestPayloadMismatch: () => ({
    status: 409, title: "The change is not the one you saw",
    message: "The change differs from the one on the page you approved. Nothing was applied; reload the page and decide again."
  }),
  WriteRequestDecisionNotAllowed: () => ({ status: 403, title: "Not allowed", message: "Only a workspace admin or editor decides on a write." }),
  StoreUnavailable: unavailable,
  DirectoryUnavailable: unavailable
} as const satisfies { readonly [K in DecisionFailure["_tag"]]: (error: Extract<DecisionFailure, { readonly _tag: K }>) => DecisionRow }

const refusalPage = (view: WorkspaceView, id: string, error: DecisionFailure) =>
  Effect.map(Effect.service(RequestId), (requestId) => {
    const row = (decisionRefusals[error._tag] as (e: DecisionFailure) => DecisionRow)(error)
    return renderErrorPage({ ...row, returnTo: pagePaths.approval(view.workspace.id, id), requestId })
  })

const decided = Effect.fnUntraced(function* (decision: "approve" | "decline", view: WorkspaceView, form: UrlParams.UrlParams) {
  const id = WriteRequestId.make((yield* HttpRouter.params)["requestId"] ?? "")
  const denied = yield* requireRole(view, roles, "Deciding on a write")
  if (denied._tag === "Some") return denied.value
  const base = { id, workspaceId: view.workspace.id, deciderId: view.person.user.id }
  const outcome = yield* (decision === "approve"
    ? decideAndExecute({ ...base, decision: "approve", argumentsHash: formField(form, "arguments_hash") ?? "" })
    : decideAndExecute({ ...base, decision: "reject" })).pipe(Effect.result)
  if (outcome._tag === "Failure") return yield* refusalPage(view, id, outcome.failure)
  const done = outcome.success
  const notice = done.status === "executed" ? `Approved and run: the platform answered ${done.providerStatus}.`
    : done.status === "failed" ? `Approved, but it failed${done.providerStatus === null ? "" : ` (the platform answered ${done.providerStatus})`}: see why below.`
    : done.status === "approved" ? "Approved: it could not be run just now (the platform or the service did not answer), so it runs by itself shortly."
    : done.status === "rejected" ? "Declined: nothing was applied."
    : `Now ${done.status}.`
  return yield* doneAndBack(pagePaths.approval(view.workspace.id, id), notice)
})

const decide = (decision: "approve" | "decline") =>
  withWorkspaceForm((view, form) => decided(decision, view, form))

export const ApprovalsRoutes = HttpRouter.use((router) =>
  Effect.gen(function* () {
    const ports = withPorts(approvalsPortServices, yield* Effect.context<ApprovalsServices>())
    const base = "/workspaces/:workspaceId/approvals"
    yield* router.add("GET", base, withWorkspace(listPage).pipe(ports))
    yield* router.add("GET", `${base}/:requestId`, withWorkspace((view) =>
      Effect.flatMap(HttpRouter.params, (params) => detailPage(view, WriteRequestId.make(params["requestId"] ?? "")))
    ).pipe(ports))
    yield* router.add("POST", `${base}/:requestId/approve`, decide("approve").pipe(ports))
    yield* router.add("POST", `${base}/:requestId/decline`, decide("decline").pipe(ports))
  })
)

type ApprovalsServices =
  | People
  | Effect.Services<ReturnType<typeof decideAndExecute>>
  | Effect.Services<ReturnType<typeof factsOf>>
  | Effect.Services<ReturnType<typeof pendingFactsOf>>

/** The services of ApprovalsServices, as values. */
const approvalsPortServices = [
  People, ApiKeyStore, ClientStore, ConnectionStore, CreditsLedger, Directory, EventOutbox, GuardrailStore, Platforms, Secrets, ToolUsageLog, Transactor,
  WriteRequestStore
] as const
