// Small HTTP helpers for the untimed set-up (a browser's cookie jar, forms, redirects not followed) and PKCE.
import { request } from "undici"
import { createHash, randomBytes } from "node:crypto"

/** A cookie jar keyed by name only: the set-up drives one flow at a time per jar, so paths do not matter. */
export class Jar {
  cookies = new Map()
  take(headers) {
    const raw = headers["set-cookie"]
    for (const line of raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]) {
      const [pair, ...attributes] = line.split(";")
      const at = pair.indexOf("=")
      const name = pair.slice(0, at).trim()
      const value = pair.slice(at + 1).trim()
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || (/^\s*expires=/i.test(a) && Date.parse(a.split("=")[1]) < Date.now()))
      if (expired || value === "") this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ")
  }
}

/** One request, no redirect followed; returns status, headers, body text. */
export const call = async (url, { method = "GET", jar, headers = {}, form, json, dispatcher } = {}) => {
  const h = { ...headers }
  if (jar !== undefined && jar.cookies.size > 0) h.cookie = jar.header()
  let body
  if (form !== undefined) {
    h["content-type"] = "application/x-www-form-urlencoded"
    body = form instanceof URLSearchParams ? form.toString() : new URLSearchParams(form).toString()
  } else if (json !== undefined) {
    h["content-type"] = "application/json"
    body = JSON.stringify(json)
  }
  const response = await request(url, { method, headers: h, body, ...(dispatcher ? { dispatcher } : {}) })
  const text = await response.body.text()
  if (jar !== undefined) jar.take(response.headers)
  return { status: response.statusCode, headers: response.headers, text }
}

export const pkcePair = () => {
  const verifier = randomBytes(32).toString("base64url")
  const challenge = createHash("sha256").update(verifier).digest("base64url")
  return { verifier, challenge }
}

/** Runs `f` over `items` with at most `limit` at a time. */
export const pool = async (items, limit, f) => {
  const results = new Array(items.length)
  let next = 0
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++
      results[i] = await f(items[i], i)
    }
  }))
  return results
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls `url` until it answers 200 or `timeoutMs` passes. */
export const waitUntilUp = async (url, timeoutMs = 60_000, isAlive = () => true) => {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    if (!isAlive()) throw new Error(`server exited before answering ${url}`)
    try {
      const r = await request(url)
      await r.body.text()
      if (r.statusCode === 200) return
    } catch {}
    await sleep(200)
  }
  throw new Error(`no answer from ${url} within ${timeoutMs} ms`)
}

export const attr = (html, name) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1]
