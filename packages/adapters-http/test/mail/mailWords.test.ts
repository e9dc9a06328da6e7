// The words of every mail (docs/service.md, Mail): what each message names, and that its one link is the page's own
// address (pagePaths) made absolute on the issuer (BASE_URL).
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  ConnectionId, Issuer, MailWords, WorkspaceId, WriteRequestId, type AppConnectedFacts, type ChangeWaitingFacts
} from "@adgate/core"
import { appConnectedMail, changeWaitingMail, mailHtml, MailWordsHttp } from "../../src/mail/mailWords.ts"
import { absolute, pagePaths } from "../../src/pages/pagePaths.ts"

const origin = "https://adgate.example"
const workspace = { id: WorkspaceId.make("ws_acme"), name: "Acme Ads" }

const connected = (over: Partial<AppConnectedFacts> = {}): AppConnectedFacts => ({
  recipient: { email: "ada@acme.example", name: "Ada" },
  workspace,
  connectionId: ConnectionId.make("con_123"),
  app: { clientId: "https://tool.example/client.json", name: "Helper", verified: false, documentHost: "tool.example" },
  approver: { email: "ann@acme.example", name: "Ann" },
  approverId: "usr_ann",
  scopes: ["tasks:read", "tools:write"],
  surface: "both",
  platforms: ["google_ads"],
  writeMode: "wait",
  ...over
})

const waiting = (over: Partial<ChangeWaitingFacts> = {}): ChangeWaitingFacts => ({
  recipient: { email: "eddie@acme.example", name: "Eddie" },
  workspace,
  requestId: WriteRequestId.make("rwq_42"),
  tool: "gads__set_campaign_budget",
  toolTitle: "Set campaign budget",
  summary: "Budget of campaign Spring sale: 50.00 → 55.00 EUR",
  reason: "approval",
  expiresAt: Date.UTC(2026, 11, 4, 9, 30),
  deciders: [{ email: "ada@acme.example", name: "Ada" }, { email: "eddie@acme.example", name: "Eddie" }],
  ...over
})

/** Every http(s) URL in a text. */
const urls = (text: string) => [...text.matchAll(/https?:\/\/\S+/g)].map((m) => m[0])

describe("the app-connected mail", () => {
  it("names the unverified app with its self-given name in quotes and its document's host, the approver and each permission in the consent page's words", () => {
    const mail = appConnectedMail(connected(), origin)
    assert.strictEqual(mail.subject, `App connected to Acme Ads: Unverified app "Helper" (described at tool.example)`)
    assert.include(mail.text, "Hello Ada,")
    assert.include(mail.text, "Ann <ann@acme.example> connected an app to the workspace Acme Ads.")
    assert.include(mail.text, "Approved by: Ann <ann@acme.example>")
    assert.include(mail.text, "  - See tasks, their plans, results and reports (tasks:read)")
    assert.include(mail.text, "  - Call platform write tools (changes) (tools:write)")
    assert.include(mail.text, "Connects to: the MCP server and the REST API")
    assert.include(mail.text, "Platforms: google_ads")
    assert.include(mail.text, "Writes: each change waits for a person's approval")
  })

  it("links to the connection's row under Connected apps, absolute on BASE_URL, and to nothing else", () => {
    const mail = appConnectedMail(connected(), origin)
    const link = absolute(origin, pagePaths.connectedApp("ws_acme", "con_123"))
    assert.strictEqual(link, "https://adgate.example/workspaces/ws_acme/api-mcp/connected/con_123")
    assert.deepStrictEqual(urls(mail.text), [link])
  })

  it("a verified product is named by its product name; an approver the Directory no longer knows, by id", () => {
    const mail = appConnectedMail(connected({ app: { clientId: "https://claude.ai/x", name: "Claude", verified: true, documentHost: null }, approver: null }), origin)
    assert.strictEqual(mail.subject, "App connected to Acme Ads: Claude (verified)")
    assert.include(mail.text, "A former member (usr_ann) connected an app")
    assert.include(mail.text, "App: Claude (verified)\n")
    assert.notInclude(mail.text, "Unverified")
  })

  it("an admin who approved it is told it was them", () => {
    const mail = appConnectedMail(connected({ recipient: { email: "ann@acme.example", name: "Ann" } }), origin)
    assert.include(mail.text, "You connected an app to the workspace Acme Ads.")
  })

  it("a self-given name cannot write lines of its own into the mail or its subject", () => {
    const mail = appConnectedMail(connected({ app: { clientId: "cli_1", name: "Helper\r\nBcc: x@evil.example\n\nClick https://evil.example/login", verified: false, documentHost: null } }), origin)
    assert.notMatch(mail.subject, /[\r\n]/)
    assert.isFalse(mail.text.split("\n").some((line) => line.startsWith("Click") || line.startsWith("Bcc:")))
    assert.include(mail.text, `App: Unverified app "Helper Bcc: x@evil.example Click https://evil.example/login"\n`,
      "the name stays inside its quotes on the app's line")
  })
})

describe("the change-waiting mail", () => {
  it("says the change in words, why it waits, who can decide and when it expires", () => {
    const mail = changeWaitingMail(waiting(), origin)
    assert.strictEqual(mail.subject, "Approval needed in Acme Ads: Set campaign budget (rwq_42)")
    assert.include(mail.text, "Hello Eddie,")
    assert.include(mail.text, "  Budget of campaign Spring sale: 50.00 → 55.00 EUR")
    assert.include(mail.text, "Tool: Set campaign budget (gads__set_campaign_budget)")
    assert.include(mail.text, "waits for approval before changes are made")
    assert.include(mail.text, "(Ada <ada@acme.example>, Eddie <eddie@acme.example>)")
    assert.include(mail.text, "expires on 2026-12-04 09:30 UTC")
    assert.include(changeWaitingMail(waiting({ reason: "person_decision" }), origin).text, "always a person's decision")
  })

  it("links to the request under Write approvals, absolute on BASE_URL, and to nothing else", () => {
    const mail = changeWaitingMail(waiting(), origin)
    const link = absolute(origin, pagePaths.approval("ws_acme", "rwq_42"))
    assert.strictEqual(link, "https://adgate.example/workspaces/ws_acme/approvals/rwq_42")
    assert.deepStrictEqual(urls(mail.text), [link])
  })
})

it.effect("MailWordsHttp links on the Issuer's origin", () =>
  Effect.gen(function* () {
    const words = yield* MailWords
    assert.deepStrictEqual(urls(words.appConnected(connected()).text), ["http://127.0.0.1:9999/workspaces/ws_acme/api-mcp/connected/con_123"])
    assert.deepStrictEqual(urls(words.changeWaiting(waiting()).text), ["http://127.0.0.1:9999/workspaces/ws_acme/approvals/rwq_42"])
  }).pipe(Effect.provide(MailWordsHttp), Effect.provide(Issuer.layer("http://127.0.0.1:9999"))))

describe("the HTML part", () => {
  it("is the text, escaped, with the links to our own pages clickable and any other address left as text", () => {
    const mail = appConnectedMail(connected({ app: { clientId: "cli_1", name: `<script>alert(1)</script> https://evil.example/x`, verified: false, documentHost: null } }), origin)
    const markup = mailHtml(mail.text, origin)
    const link = absolute(origin, pagePaths.connectedApp("ws_acme", "con_123"))
    assert.include(markup, `<a href="${link}">${link}</a>`)
    assert.include(markup, "&lt;script&gt;alert(1)&lt;/script&gt; https://evil.example/x")
    assert.notInclude(markup, "<script>")
    assert.notInclude(markup, `href="https://evil.example`)
    assert.strictEqual([...markup.matchAll(/<a /g)].length, 1)
  })
})
