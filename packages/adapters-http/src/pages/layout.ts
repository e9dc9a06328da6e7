// The HTML shell of every page the service renders itself (sign-in, consent, error pages): an escaping `html`
// template, the page frame and the error page. Checklist M 153/160: no inline script or style, no third-party asset.
import { escape } from "html-escaper"
import { HttpServerResponse } from "effect/http"

/** Markup that is already safe: produced by `html` or explicitly trusted with `raw`. */
export class Html {
  readonly value: string
  constructor(value: string) {
    this.value = value
  }
  toString(): string {
    return this.value
  }
}

/** Trusts a string as markup. Only for constants and for output of `html`; never for request or stored data. */
export const raw = (markup: string): Html => new Html(markup)

const interpolate = (value: unknown): string => {
  if (value instanceof Html) return value.value
  if (value === null || value === undefined || value === false) return ""
  if (Array.isArray(value)) return value.map(interpolate).join("")
  return escape(String(value))
}

/**
 * Tagged template: every interpolation is HTML-escaped unless it is `Html` (from `html` or `raw`). Arrays are
 * concatenated item by item (each escaped), `null`/`undefined`/`false` render as nothing.
 */
export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<unknown>): Html => {
  let out = strings[0] ?? ""
  for (let i = 0; i < values.length; i++) out += interpolate(values[i]) + (strings[i + 1] ?? "")
  return new Html(out)
}

/** The stylesheet and the script are served from our own origin (CSP `style-src 'self'`, `script-src 'self'`). */
export const stylesheetPath = "/assets/app.css"
export const scriptPath = "/assets/app.js"

export const htmlHeaders = {
  "cache-control": "no-store",
  pragma: "no-cache"
} as const

export interface PageOptions {
  readonly title: string
  readonly body: Html
  readonly status?: number
  readonly headers?: Readonly<Record<string, string>>
}

/** The whole document around `body`; the response is `text/html; charset=utf-8` and never cached. */
export const renderDocument = (title: string, body: Html): Html =>
  html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title} · adgate</title>
<link rel="stylesheet" href="${stylesheetPath}">
<script src="${scriptPath}" defer></script>
</head>
<body>
<header class="top"><span class="brand">adgate</span></header>
<main>
${body}
</main>
</body>
</html>
`

/** A page's redirect after a form post or to sign-in: 303, never cached (RFC 9700 §4.12: never 307). */
export const seeOther = (location: string): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.redirect(location, { status: 303, headers: { "cache-control": "no-store" } })

export const renderPage = (options: PageOptions): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(renderDocument(options.title, options.body).value, {
    status: options.status ?? 200,
    contentType: "text/html; charset=utf-8",
    headers: { ...htmlHeaders, ...options.headers }
  })

export interface ErrorPageOptions {
  readonly status: number
  readonly title: string
  readonly message: string
  /** A link back (e.g. the app's redirect with `error=…`); shown as a "Return" link. */
  readonly returnTo?: string
  /** Shown so a person can quote it; it is also in the log line of the request. */
  readonly requestId?: string
  readonly headers?: Readonly<Record<string, string>>
}

export const renderErrorPage = (options: ErrorPageOptions): HttpServerResponse.HttpServerResponse =>
  renderPage({
    title: options.title,
    status: options.status,
    ...(options.headers === undefined ? {} : { headers: options.headers }),
    body: html`<section class="card error">
<h1>${options.title}</h1>
<p>${options.message}</p>
${options.returnTo === undefined ? "" : html`<p><a class="button" href="${options.returnTo}">Return</a></p>`}
${options.requestId === undefined || options.requestId === "" ? "" : html`<p class="muted">Request id: <code>${options.requestId}</code></p>`}
</section>`
  })

/** The stylesheet served at `stylesheetPath`. */
export const stylesheet = `:root{color-scheme:light dark;--fg:#1d232b;--bg:#f6f7f9;--card:#fff;--muted:#5c6673;--accent:#2457d6;--danger:#b42318;--border:#d7dce3}
@media (prefers-color-scheme:dark){:root{--fg:#e7eaee;--bg:#14171b;--card:#1d2127;--muted:#9aa4b1;--accent:#7aa2ff;--danger:#ff8a80;--border:#333a44}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
.top{padding:.75rem 1.25rem;border-bottom:1px solid var(--border);background:var(--card);display:flex;gap:1rem;align-items:center;justify-content:space-between}
.brand{font-weight:700;letter-spacing:.02em}
main{max-width:40rem;margin:2rem auto;padding:0 1rem}
.card{background:var(--card);border:1px solid var(--border);border-radius:.5rem;padding:1.5rem;margin-bottom:1rem}
h1{font-size:1.4rem;margin:0 0 1rem}
label{display:block;margin:.75rem 0 .25rem;font-weight:600}
input[type=email],input[type=password],input[type=text],select{width:100%;padding:.5rem;border:1px solid var(--border);border-radius:.375rem;font:inherit;background:var(--bg);color:var(--fg)}
button,.button{display:inline-block;margin-top:1rem;padding:.5rem 1rem;border-radius:.375rem;border:1px solid var(--accent);background:var(--accent);color:#fff;font:inherit;cursor:pointer;text-decoration:none}
button.secondary,.button.secondary{background:transparent;color:var(--accent)}
button:disabled{opacity:.5;cursor:not-allowed}
.inline{display:inline}
.muted{color:var(--muted);font-size:.9rem}
.error h1{color:var(--danger)}
.alert{border-left:4px solid var(--danger);padding:.5rem .75rem;background:var(--bg);margin-bottom:1rem}
.warning{border-left:4px solid #d99a00;padding:.5rem .75rem;background:var(--bg)}
.badge{display:inline-block;vertical-align:middle;margin-right:.35rem;padding:.1rem .5rem;border-radius:999px;font-size:.75rem;font-weight:700;letter-spacing:.04em;text-transform:uppercase;line-height:1.4}
.badge.unverified{color:#7a2e0e;background:#fde7c8;border:1px solid #d99a00}
.badge.verified{color:#0b5c2e;background:#d7f5e3;border:1px solid #2f9e5b}
.struck{text-decoration:line-through;color:var(--muted)}
ul.plain{list-style:none;padding:0}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em}
`

/**
 * The script served at `scriptPath`: a button or input with `data-enable-after="<ms>"` is rendered `disabled`
 * and enabled once the page has been on screen that long (the consent page's "Allow access").
 */
export const script = `"use strict";
document.addEventListener("DOMContentLoaded",function(){
  document.querySelectorAll("[data-enable-after]").forEach(function(el){
    var ms=parseInt(el.getAttribute("data-enable-after")||"0",10);
    setTimeout(function(){el.disabled=false;},isFinite(ms)?ms:0);
  });
});
`
