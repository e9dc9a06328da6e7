// The workspace's Settings page (docs/service.md, Pages: "Workspace settings"): the guardrails (change caps, spend
// caps, protected names), which every member reads and an admin changes (guardrails/workspaceGuardrails.ts), and the
// credits ledger: the balance and its entries newest first, a page at a time (credits/creditHistory.ts).
import { Effect } from "effect"
import { HttpRouter, type HttpServerRequest, type UrlParams } from "effect/http"
import {
  canChangeGuardrails, changeGuardrails, type CreditEntry, creditHistory, type GuardrailChanges, type Guardrails, type GuardrailsInvalid,
  type GuardrailsNotAllowed, showGuardrails
} from "@adgate/core"
import { formatCredits, formatWhen } from "./formatting.ts"
import { html, type Html } from "./layout.ts"
import { pagePaths } from "./pagePaths.ts"
import { type PagePorts, withPagePorts } from "./PagePorts.ts"
import { doneAndBack, formField, noticeOf, renderWorkspacePage, withWorkspace, withWorkspaceForm, type WorkspaceView } from "./workspaceFrame.ts"

/** A numeric cap of the guardrails: its words on the page and whether it takes whole numbers only. */
interface CapField {
  readonly label: string
  /** What the cap does, and what leaving it empty means. */
  readonly help: string
  readonly unit: string
  readonly integer: boolean
  /** What an empty cap is called where it is read. */
  readonly unset: string
}

type CapName = Exclude<keyof GuardrailChanges, "protectedNames">

/**
 * Every numeric cap the core's guardrails have, in the order shown: a cap added to GuardrailChanges and missing here
 * does not compile, so the form always covers every field.
 */
export const capFields: Readonly<Record<CapName, CapField>> = {
  maxBudgetChangePercent: {
    label: "Largest budget change per write",
    help: "In percent of the current daily budget, up or down. Leave empty for no cap.",
    unit: "%",
    integer: false,
    unset: "not set"
  },
  maxBudgetChangePercentPerDay: {
    label: "Largest budget change per day",
    help: "The total change of one daily budget in a UTC day, in percent of its value before the day's first change, so that the per-write cap cannot be taken in steps. Leave empty to let the per-write cap bound the day too.",
    unit: "%",
    integer: false,
    unset: "as per write"
  },
  maxChangesPerDay: {
    label: "Changes per day",
    help: "How many writes may change the platforms per UTC day, across the whole workspace. Leave empty for no cap.",
    unit: "changes",
    integer: true,
    unset: "not set"
  },
  maxDailyBudgetPerAccount: {
    label: "Highest total daily budget per account",
    help: "In the account's currency: no change may take an account's total daily budget above it. Leave empty for no cap.",
    unit: "per day",
    integer: false,
    unset: "not set"
  }
}

const capNames = Object.keys(capFields) as ReadonlyArray<CapName>

/** What the guardrails form was sent with, shown again with its problem. */
type GuardrailsForm = Readonly<Record<CapName | "protectedNames", string>>

const formOf = (g: Guardrails): GuardrailsForm => ({
  ...Object.fromEntries(capNames.map((name) => [name, g[name] === null ? "" : String(g[name])])) as Record<CapName, string>,
  protectedNames: g.protectedNames.join("\n")
})

const inputName = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

const guardrailsFacts = (g: Guardrails): Html =>
  html`<dl class="facts">
${capNames.map((name) => html`<dt>${capFields[name].label}</dt><dd>${g[name] === null ? html`<span class="muted">${capFields[name].unset}</span>` : `${g[name]} ${capFields[name].unit}`}</dd>`)}
<dt>Protected names</dt><dd>${g.protectedNames.length === 0 ? html`<span class="muted">none</span>` : html`<ul class="plain">${g.protectedNames.map((p) => html`<li><code>${p}</code></li>`)}</ul>`}</dd>
</dl>`

const guardrailsSection = (view: WorkspaceView, g: Guardrails, form: GuardrailsForm, problem: string | null): Html =>
  html`<section class="card" id="guardrails">
<h2>Guardrails</h2>
<p class="muted">Checked for every write when it is proposed and again when it runs, whatever app or key makes it.${g.updatedAt === 0 ? "" : ` Last changed ${formatWhen(g.updatedAt)}.`}</p>
${canChangeGuardrails(view.role)
  ? html`${problem === null ? "" : html`<p class="alert" role="alert">${problem}</p>`}
<form method="post" action="${pagePaths.settings(view.workspace.id)}/guardrails">
<input type="hidden" name="csrf_token" value="${view.person.csrfToken}">
${capNames.map((name) => html`<label for="${inputName(name)}">${capFields[name].label} <span class="muted">(${capFields[name].unit})</span></label>
<input id="${inputName(name)}" name="${inputName(name)}" type="number" min="0" step="${capFields[name].integer ? "1" : "any"}" value="${form[name]}" aria-describedby="${inputName(name)}_help" placeholder="${capFields[name].unset}">
<p class="muted" id="${inputName(name)}_help">${capFields[name].help}</p>`)}
<label for="protected_names">Protected names, one pattern per line</label>
<textarea id="protected_names" name="protected_names" aria-describedby="protected_help">${form.protectedNames}</textarea>
<p class="muted" id="protected_help">Campaign, ad set or product names no tool may change. Case does not matter; <code>*</code> matches any run of characters and <code>?</code> one, e.g. <code>Brand*</code>.</p>
<button type="submit">Save guardrails</button>
</form>`
  : html`${guardrailsFacts(g)}<p class="muted">Only a workspace admin changes the guardrails.</p>`}
</section>`

const entryRow = (e: CreditEntry): Html =>
  html`<tr>
<td>${formatWhen(e.at)}</td>
<td><span class="badge ${e.kind === "grant" ? "info" : "neutral"}">${e.kind}</span></td>
<td class="num">${e.kind === "grant" ? "+" : "−"}${formatCredits(e.amount)}</td>
<td class="num">${formatCredits(e.balanceAfter)}</td>
<td>${e.reason}</td>
<td>${e.reference === null ? "" : html`<code>${e.reference}</code>`}</td>
</tr>`

const creditsSection = (view: WorkspaceView, history: { readonly balance: number; readonly page: number; readonly entries: ReadonlyArray<CreditEntry>; readonly hasOlder: boolean }): Html =>
  html`<section class="card" id="credits">
<h2>Credits</h2>
<div class="figures"><div class="figure"><span class="muted">Balance</span><strong>${formatCredits(history.balance)}</strong></div></div>
${history.entries.length === 0
  ? html`<p class="muted">${history.page === 1 ? "No credits have moved yet." : "No entries on this page."}</p>`
  : html`<div class="table-wrap"><table>
<caption class="visually-hidden">Credits ledger, newest first, page ${history.page}</caption>
<thead><tr><th scope="col">When</th><th scope="col">Kind</th><th scope="col" class="num">Amount</th><th scope="col" class="num">Balance after</th><th scope="col">For</th><th scope="col">Reference</th></tr></thead>
<tbody>
${history.entries.map(entryRow)}
</tbody>
</table></div>`}
${history.page === 1 && !history.hasOlder ? "" : html`<nav class="pages" aria-label="Ledger pages">
${history.page > 1 ? html`<a href="${pagePaths.settingsLedger(view.workspace.id, history.page - 1)}#credits" rel="prev">Newer entries</a>` : ""}
<span class="muted">Page ${history.page}</span>
${history.hasOlder ? html`<a href="${pagePaths.settingsLedger(view.workspace.id, history.page + 1)}#credits" rel="next">Older entries</a>` : ""}
</nav>`}
</section>`

/** The core's refusals of a guardrails change, as the form says them: one row each. */
type GuardrailsRefusal = GuardrailsInvalid | GuardrailsNotAllowed
export const guardrailsRefusals = {
  GuardrailsInvalid: (e) => ({ status: 400, message: `The guardrails were not saved: ${e.message}.` }),
  GuardrailsNotAllowed: () => ({ status: 403, message: "Only a workspace admin changes the guardrails." })
} as const satisfies { readonly [K in GuardrailsRefusal["_tag"]]: (e: Extract<GuardrailsRefusal, { readonly _tag: K }>) => { readonly status: number; readonly message: string } }

const isGuardrailsRefusal = (e: { readonly _tag: string }): e is GuardrailsRefusal => Object.hasOwn(guardrailsRefusals, e._tag)

/** The ledger page asked for (`?page=`), 1 when absent or not a whole number. */
const ledgerPageOf = (request: HttpServerRequest.HttpServerRequest): number => {
  const value = new URL(request.url, "http://x").searchParams.get("page") ?? "1"
  return /^[1-9][0-9]{0,5}$/.test(value) ? Number(value) : 1
}

const settingsPage = Effect.fnUntraced(function* (view: WorkspaceView, request: HttpServerRequest.HttpServerRequest, options: {
  readonly form?: GuardrailsForm
  readonly problem?: string
  readonly status?: number
} = {}) {
  const guardrails = yield* showGuardrails(view.workspace.id)
  const history = yield* creditHistory(view.workspace.id, ledgerPageOf(request))
  return renderWorkspacePage({
    view,
    section: "settings",
    title: "Settings",
    ...(options.status === undefined ? {} : { status: options.status }),
    body: html`${noticeOf(view.person)}
${guardrailsSection(view, guardrails, options.form ?? formOf(guardrails), options.problem ?? null)}
${creditsSection(view, history)}`
  })
})

/** The changes a sent form asks for, or why it cannot be read (the core checks the ranges). */
const changesOf = (form: GuardrailsForm): GuardrailChanges | string => {
  const changes: Record<string, unknown> = {}
  for (const name of capNames) {
    const text = form[name].trim()
    if (text === "") {
      changes[name] = null
      continue
    }
    const value = Number(text)
    if (!/^-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)$/.test(text) || !Number.isFinite(value)) return `${capFields[name].label} must be a number of 0 or more, or empty.`
    changes[name] = value
  }
  changes["protectedNames"] = form.protectedNames.split(/\r\n|\r|\n/).map((line) => line.trim()).filter((line) => line !== "")
  return changes as GuardrailChanges
}

export const SettingsRoutes = HttpRouter.use((router) =>
  Effect.gen(function* () {
    const ports = withPagePorts(yield* Effect.context<PagePorts>())
    const routePath = "/workspaces/:workspaceId/settings"

    yield* router.add("GET", routePath, () =>
      withWorkspace((view, request) => settingsPage(view, request)).pipe(ports))

    const guardrailsPost = Effect.fnUntraced(function* (view: WorkspaceView, form: UrlParams.UrlParams, request: HttpServerRequest.HttpServerRequest) {
      const sent = Object.fromEntries([...capNames, "protectedNames"].map((name) =>
        [name, (formField(form, inputName(name)) ?? "").slice(0, 16_384)])) as GuardrailsForm
      const again = (problem: string, status: number) =>
        settingsPage(view, request.modify({ url: pagePaths.settings(view.workspace.id) }), { form: sent, problem, status })
      if (!canChangeGuardrails(view.role)) return yield* again(guardrailsRefusals.GuardrailsNotAllowed().message, 403)
      const changes = changesOf(sent)
      if (typeof changes === "string") return yield* again(changes, 400)
      const outcome = yield* changeGuardrails({ workspaceId: view.workspace.id, actorId: view.person.user.id, changes }).pipe(Effect.result)
      if (outcome._tag === "Success") return yield* doneAndBack(`${pagePaths.settings(view.workspace.id)}`, "The guardrails are saved.")
      const error = outcome.failure
      if (!isGuardrailsRefusal(error)) return yield* error
      const row = (guardrailsRefusals[error._tag] as (e: GuardrailsRefusal) => { readonly status: number; readonly message: string })(error)
      return yield* again(row.message, row.status)
    })

    yield* router.add("POST", `${routePath}/guardrails`, () =>
      withWorkspaceForm((view, form, request) => guardrailsPost(view, form, request)).pipe(ports))
  })
)
