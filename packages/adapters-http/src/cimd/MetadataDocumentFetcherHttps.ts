// The MetadataDocumentFetcher port over node:https (spec §Authentication 4, checklist section I): https only, no
// redirects followed, at most 64 KB, 5 seconds for the whole fetch, JSON only; the SSRF check runs on the address
// actually connected to (one DNS look-up, its checked answer handed to the socket; CIMD §6.5).
import { Effect, Layer, Option } from "effect"
import {
  MetadataDocumentFetcher,
  MetadataDocumentUnavailable,
  type FetchedDocument,
  type MetadataDocumentFetcherShape
} from "@adgate/core"
import type { LookupFunction } from "node:net"
import { isIP } from "node:net"
import { request, type RequestOptions } from "node:https"
import { lookup as dnsLookup } from "node:dns/promises"
import { rootCertificates } from "node:tls"
import { isPublicAddress } from "./addressPolicy.ts"

/** Spec §Limits: fetch max 64 KB, 5 seconds. */
export const maxDocumentBytes = 64 * 1024
export const fetchTimeoutMs = 5_000

export interface ResolvedAddress {
  readonly address: string
  readonly family: 4 | 6
}

export interface MetadataDocumentFetcherHttpsOptions {
  /** Tests only: an extra CA certificate (PEM) to trust beside the system roots. Production never sets it. */
  readonly extraCa?: string
  /** Tests only: internal addresses accepted anyway (e.g. 127.0.0.1 for a local test server). */
  readonly allowAddresses?: ReadonlyArray<string>
  /** Tests only: a resolver used instead of DNS (e.g. a name answering a private address). */
  readonly resolve?: (hostname: string) => Promise<ReadonlyArray<ResolvedAddress>>
  /** Tests only: the port connected to instead of 443 (document URLs carry no port). */
  readonly connectPort?: number
  /** Tests only: a shorter overall timeout. */
  readonly timeoutMs?: number
}

const refuse = (url: string, reason: string) => new MetadataDocumentUnavailable({ url, reason })

const systemResolve = async (hostname: string): Promise<ReadonlyArray<ResolvedAddress>> => {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true })
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))
}

/**
 * Seconds a response may be cached for, from Cache-Control (the core clamps it to 5 minutes – 24 hours). Any number
 * of digits: a very long max-age is a long lifetime (clamped to 24 hours), never a reason to fall back to 5 minutes.
 */
export const parseMaxAge = (cacheControl: string | undefined): Option.Option<number> => {
  if (cacheControl === undefined) return Option.none()
  const directives = cacheControl.toLowerCase().split(",").map((d) => d.trim())
  if (directives.some((d) => d === "no-store" || d === "no-cache")) return Option.some(0)
  for (const d of directives) {
    const m = /^max-age\s*=\s*"?(\d+)"?$/.exec(d)
    if (m?.[1] !== undefined) return Option.some(Number(m[1]))
  }
  return Option.none()
}

/**
 * Refuses a URL that cannot be fetched safely before any connection: not https, a port, credentials, or a host
 * given as an address (decimal, hex, octal, short or IPv4-mapped forms all parse to one, and so are refused).
 */
export const checkDocumentUrl = (raw: string): URL | string => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return "not a URL"
  }
  if (url.protocol !== "https:") return "not https"
  if (url.port !== "") return "a port is not allowed"
  if (url.username !== "" || url.password !== "") return "credentials in the URL"
  if (url.hash !== "" || raw.includes("#")) return "a fragment is not allowed"
  const host = url.hostname
  if (host.startsWith("[") || isIP(host) !== 0) return "the host is an address"
  if (host.length === 0) return "no host"
  return url
}

/**
 * The media types a document may be served with (docs/decisions.md, Metadata-document fetch): JSON's own types, and
 * `text/plain` and `text/json`, because many hosts serve `.json` files so. The body must parse as a JSON object
 * whatever the type says; the type only turns away answers that say they are something else (an HTML error page).
 */
export const isAcceptedDocumentType = (contentType: string | undefined): boolean => {
  if (contentType === undefined) return false
  const essence = contentType.split(";")[0]?.trim().toLowerCase() ?? ""
  return essence === "application/json" || essence === "text/json" || essence === "text/plain" ||
    /^application\/[a-z0-9.+-]+\+json$/.test(essence)
}

type Outcome = { readonly ok: true; readonly document: FetchedDocument } | { readonly ok: false; readonly reason: string }

const fetchOnce = (url: URL, options: MetadataDocumentFetcherHttpsOptions): Promise<Outcome> =>
  new Promise<Outcome>((resolveOutcome) => {
    let settled = false
    let checkedAddress: string | null = null
    const finish = (outcome: Outcome) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      req.destroy()
      resolveOutcome(outcome)
    }
    const fail = (reason: string) => finish({ ok: false, reason })
    const allowed = new Set(options.allowAddresses ?? [])
    const acceptable = (address: string) => allowed.has(address) || isPublicAddress(address)
    const resolveName = options.resolve ?? systemResolve

    // One look-up; every answer must be acceptable; the first is handed to the socket, so no second look-up
    // happens between the check and the connection (DNS rebinding, checklist case 117).
    const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
      resolveName(hostname).then(
        (answers) => {
          const first = answers[0]
          if (first === undefined) return callback(new Error("no address"), "", 4)
          const refused = answers.find((a) => !acceptable(a.address))
          if (refused !== undefined) {
            checkedAddress = null
            fail("the host resolves to an internal address")
            return callback(new Error("internal address refused"), "", 4)
          }
          checkedAddress = first.address
          if (lookupOptions.all === true) return callback(null, [{ address: first.address, family: first.family }])
          return callback(null, first.address, first.family)
        },
        () => {
          fail("the host name could not be resolved")
          callback(new Error("look-up failed"), "", 4)
        }
      )
    }

    const requestOptions: RequestOptions = {
      method: "GET",
      protocol: "https:",
      hostname: url.hostname,
      port: options.connectPort ?? 443,
      path: `${url.pathname}${url.search}`,
      servername: url.hostname,
      headers: { accept: "application/json", "accept-encoding": "identity", "user-agent": "adgate-metadata-fetcher" },
      lookup,
      agent: false,
      rejectUnauthorized: true,
      ...(options.extraCa === undefined ? {} : { ca: [...rootCertificates, options.extraCa] })
    }

    const req = request(requestOptions, (res) => {
      // The address actually connected to must be the one checked (belt and braces against any re-resolution).
      const remote = res.socket.remoteAddress
      if (remote === undefined || checkedAddress === null || !acceptable(remote)) {
        return fail("connected to an unchecked address")
      }
      const status = res.statusCode ?? 0
      if (status >= 300 && status < 400) return fail("redirects are not followed")
      if (status !== 200) return fail(`status ${status}`)
      if (!isAcceptedDocumentType(res.headers["content-type"])) return fail("not JSON content")
      const encoding = res.headers["content-encoding"]
      if (encoding !== undefined && encoding.toLowerCase() !== "identity") return fail("compressed content is refused")
      const declared = Number(res.headers["content-length"] ?? "0")
      if (Number.isFinite(declared) && declared > maxDocumentBytes) return fail("the document is larger than 64 KB")
      const chunks: Array<Buffer> = []
      let size = 0
      res.on("data", (chunk: Buffer) => {
        size += chunk.length
        if (size > maxDocumentBytes) return fail("the document is larger than 64 KB")
        chunks.push(chunk)
      })
      res.on("error", () => fail("the response broke off"))
      res.on("end", () => {
        let text: string
        try {
          text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(Buffer.concat(chunks))
        } catch {
          return fail("not valid UTF-8")
        }
        let body: unknown
        try {
          body = JSON.parse(text)
        } catch {
          return fail("not valid JSON")
        }
        finish({ ok: true, document: { body, maxAgeSeconds: parseMaxAge(res.headers["cache-control"]) } })
      })
    })
    req.on("error", (error: NodeJS.ErrnoException) => {
      fail(error.code?.startsWith("ERR_TLS") || error.code?.includes("CERT") ? "TLS verification failed" : "the connection failed")
    })
    const timer = setTimeout(() => fail("timed out after 5 seconds"), options.timeoutMs ?? fetchTimeoutMs)
    req.end()
  })

/** One document's fetch. */
const fetchDocument = Effect.fnUntraced(function* (raw: string, options: MetadataDocumentFetcherHttpsOptions) {
  const checked = checkDocumentUrl(raw)
  if (typeof checked === "string") return yield* refuse(raw, checked)
  const outcome = yield* Effect.promise(() => fetchOnce(checked, options))
  if (!outcome.ok) return yield* refuse(raw, outcome.reason)
  return outcome.document
})

export const makeMetadataDocumentFetcherHttps = (
  options: MetadataDocumentFetcherHttpsOptions = {}
): MetadataDocumentFetcherShape =>
  MetadataDocumentFetcher.of({
    fetch: (raw) => fetchDocument(raw, options).pipe(Effect.withSpan("cimd.fetchMetadataDocument"))
  })

/** The production fetcher; the options exist for tests only. */
export const MetadataDocumentFetcherHttps = (options: MetadataDocumentFetcherHttpsOptions = {}) =>
  Layer.succeed(MetadataDocumentFetcher, makeMetadataDocumentFetcherHttps(options))
