// Reading OAuth parameters off HTTP requests exactly as sent: raw query and form bodies keep duplicates and order
// (OAuth 2.1 §3.1: a parameter sent twice is refused by the core), strict percent-decoding (checklist N 168–169),
// JSON bodies as flat string parameters, and the Basic client credentials of RFC 6749 §2.3.1 (form-encoded parts).
import { Effect, Result } from "effect"
import type { HttpServerRequest } from "effect/http"
import { isBodyTooLarge } from "../security.ts"
import { bodyTooLarge, Unreadable } from "./errors.ts"

export type Params = ReadonlyArray<readonly [string, string]>

const unreadable = (description: string): Unreadable => new Unreadable({ status: 400, description })

// C0 controls and DEL never belong in a token, revocation or form parameter (checklist 169).
const controlCharacter = /[\u0000-\u001f\u007f]/
// At /oauth/authorize only NUL is refused (checklist 169; a database text column cannot hold it): decision 10 puts no
// charset restriction on `state`, which comes back unchanged, percent-encoded in Location and escaped on pages.
const nulCharacter = /\u0000/

const decodeComponent = (raw: string, refused: RegExp = controlCharacter): string | null => {
  // Most parts (a token, a grant type, a client id) have nothing to decode: the same checks on the text as sent,
  // without the copy through replaceAll and decodeURIComponent (a token request's parameters on every request).
  if (!raw.includes("%") && !raw.includes("+")) return !raw.isWellFormed() || refused.test(raw) ? null : raw
  try {
    const decoded = decodeURIComponent(raw.replaceAll("+", " "))
    // decodeURIComponent refuses invalid UTF-8; a lone surrogate can still come from a JSON body: refuse it too.
    if (!decoded.isWellFormed() || refused.test(decoded)) return null
    return decoded
  } catch {
    return null
  }
}

/** application/x-www-form-urlencoded, strictly: every pair percent-decoded, keys kept flat (no `a[b]` expansion). */
export const parseFormEncoded = (text: string, refused: RegExp = controlCharacter): Result.Result<Params, Unreadable> => {
  const pairs: Array<readonly [string, string]> = []
  if (text === "") return Result.succeed(pairs)
  for (const part of text.split("&")) {
    if (part === "") continue
    const eq = part.indexOf("=")
    const key = decodeComponent(eq === -1 ? part : part.slice(0, eq), refused)
    const value = decodeComponent(eq === -1 ? "" : part.slice(eq + 1), refused)
    if (key === null || value === null) return Result.fail(unreadable("A parameter is not correctly percent-encoded."))
    pairs.push([key, value])
  }
  return Result.succeed(pairs)
}

/** The query of GET /oauth/authorize: strictly percent-decoded, any character but NUL (decision 10, checklist 169). */
export const parseAuthorizationQuery = (url: string): Result.Result<Params, Unreadable> =>
  parseFormEncoded(rawQuery(url), nulCharacter)

/** The raw query string of a request URL (without `?`), or "" when there is none. */
export const rawQuery = (url: string): string => {
  const start = url.indexOf("?")
  if (start === -1) return ""
  const end = url.indexOf("#", start)
  return url.slice(start + 1, end === -1 ? undefined : end)
}

/** A JSON body as parameters: an object whose values are strings (numbers and booleans as their text). */
export const paramsFromJson = (body: unknown): Result.Result<Params, Unreadable> => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return Result.fail(unreadable("The body must be a JSON object."))
  const pairs: Array<readonly [string, string]> = []
  for (const [key, value] of Object.entries(body)) {
    if (value === null || value === undefined) continue
    if (typeof value === "string") {
      if (!value.isWellFormed() || controlCharacter.test(value)) return Result.fail(unreadable(`The parameter ${key} contains characters that are not allowed.`))
      pairs.push([key, value])
    } else if (typeof value === "number" || typeof value === "boolean") pairs.push([key, String(value)])
    else return Result.fail(unreadable(`The parameter ${key} must be a string.`))
  }
  return Result.succeed(pairs)
}

/**
 * The keys of a JSON object's own members, decoded, duplicates kept (JSON.parse keeps only the last value of a
 * duplicated key, so `{"client_id":"a","client_id":"b"}` would otherwise pass as one parameter). `text` is valid JSON.
 */
export const topLevelKeys = (text: string): ReadonlyArray<string> => {
  const keys: Array<string> = []
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '"') {
      let end = i + 1
      while (end < text.length && text[end] !== '"') end += text[end] === "\\" ? 2 : 1
      const token = text.slice(i, end + 1)
      i = end
      if (depth !== 1) continue
      let next = end + 1
      while (next < text.length && (text[next] === " " || text[next] === "\t" || text[next] === "\n" || text[next] === "\r")) next++
      if (text[next] === ":") keys.push(JSON.parse(token) as string)
    } else if (c === "{" || c === "[") depth++
    else if (c === "}" || c === "]") depth--
  }
  return keys
}

/** The media type of a Content-Type header without parameters, lower case ("" when absent). */
export const mediaTypeOf = (contentType: string | undefined): string =>
  (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? ""

/** The media type of a request without parameters, lower case ("" when absent). */
export const mediaType = (request: HttpServerRequest.HttpServerRequest): string => mediaTypeOf(request.headers["content-type"])

/** The body text; a body over the limit is 413, any other read failure 400. */
export const bodyText = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<string, Unreadable> =>
  request.text.pipe(
    Effect.mapError((error) => (isBodyTooLarge(error) ? bodyTooLarge() : unreadable("The request body could not be read.")))
  )

/** The media types a token or revocation request's body may have (RFC 6749 §3.2; spec §POST /oauth/token: JSON too). */
export const isParamsMediaType = (type: string): boolean => type === "application/x-www-form-urlencoded" || type === "application/json"

const notParamsMediaType = (): Unreadable => unreadable("The body must be application/x-www-form-urlencoded or application/json.")

/**
 * The parameters of a body of media type `type` (mediaTypeOf): a form, or a JSON object of flat values in which no
 * member is sent twice (OAuth 2.1 §3.1, in a JSON body as in a form).
 */
export const paramsOfBody = (type: string, text: string): Result.Result<Params, Unreadable> => {
  if (type === "application/x-www-form-urlencoded") return parseFormEncoded(text)
  if (type !== "application/json") return Result.fail(notParamsMediaType())
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return Result.fail(unreadable("The body is not valid JSON."))
  }
  const params = paramsFromJson(body)
  if (Result.isFailure(params)) return params
  const keys = topLevelKeys(text)
  return new Set(keys).size !== keys.length ? Result.fail(unreadable("A parameter was sent more than once.")) : params
}

/** Parameters in the URL are refused: a secret must never travel in a URI (OAuth 2.1 §2.4.1). */
export const paramsInUrl = (): Unreadable => unreadable("Parameters must be sent in the request body, not in the URL.")

/**
 * The parameters of a token or revocation request: `application/x-www-form-urlencoded` (RFC 6749 §3.2), or JSON
 * (spec §POST /oauth/token), in the body only (paramsInUrl). The body is read only when its media type is one of them.
 */
export const readBodyParams: (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<Params, Unreadable> =
  Effect.fnUntraced(function* (request: HttpServerRequest.HttpServerRequest) {
    if (rawQuery(request.url) !== "") return yield* Effect.fail(paramsInUrl())
    const type = mediaType(request)
    if (!isParamsMediaType(type)) return yield* Effect.fail(notParamsMediaType())
    return yield* Effect.fromResult(paramsOfBody(type, yield* bodyText(request)))
  })

export type BasicCredentials = { readonly clientId: string; readonly clientSecret: string } | null | "malformed"

const base64 = /^[A-Za-z0-9+/]+={0,2}$/

/**
 * The client credentials of an `Authorization: Basic` header (RFC 6749 §2.3.1: client_id and client_secret are each
 * form-encoded, then joined by ":" and base64-encoded). No header → null; another scheme or a header that does not
 * decode → "malformed" (the core answers invalid_client, checklist 58).
 */
export const basicCredentials = (request: HttpServerRequest.HttpServerRequest): BasicCredentials =>
  basicCredentialsOf(request.headers["authorization"])

/** basicCredentials of an Authorization header's value (undefined: no header). */
export const basicCredentialsOf = (header: string | undefined): BasicCredentials => {
  if (header === undefined) return null
  const match = /^basic +(\S+) *$/i.exec(header)
  if (match?.[1] === undefined || match[1].length % 4 !== 0 || !base64.test(match[1])) return "malformed"
  let decoded: string
  try {
    decoded = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(match[1], "base64"))
  } catch {
    return "malformed"
  }
  const colon = decoded.indexOf(":")
  if (colon === -1) return "malformed"
  const clientId = decodeComponent(decoded.slice(0, colon))
  const clientSecret = decodeComponent(decoded.slice(colon + 1))
  if (clientId === null || clientSecret === null || clientId === "") return "malformed"
  return { clientId, clientSecret }
}
