// The redirect that carries the authorization response (RFC 6749 §4.1.2 and §4.1.2.1, RFC 9207 §2): parameters
// appended percent-encoded to the redirect URI's own query, which is kept, with `iss` exactly once.
const encode = (value: string): string =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)

const nameOf = (pair: string): string => {
  const raw = pair.split("=")[0] ?? ""
  try {
    return decodeURIComponent(raw.replace(/\+/g, " "))
  } catch {
    return raw
  }
}

/**
 * Builds the Location of the authorization response. `params` are appended in order, null values left out
 * (e.g. a missing `state`); `iss` is always added last from `issuer`, whatever `params` says. A parameter of
 * the registered query with a name being added is dropped, so that the client never sees two values.
 */
export const authorizationResponseUrl = (
  redirectUri: string,
  params: Readonly<Record<string, string | null>>,
  issuer: string
): string => {
  const hash = redirectUri.indexOf("#")
  const base = hash === -1 ? redirectUri : redirectUri.slice(0, hash)
  const question = base.indexOf("?")
  const path = question === -1 ? base : base.slice(0, question)
  const added = Object.entries(params).filter(([name, value]) => name !== "iss" && value !== null) as Array<[string, string]>
  const addedNames = new Set([...added.map(([name]) => name), "iss"])
  const kept = question === -1 ? [] : base.slice(question + 1).split("&").filter((pair) => pair !== "" && !addedNames.has(nameOf(pair)))
  const appended = [...added.map(([name, value]) => `${encode(name)}=${encode(value)}`), `iss=${encode(issuer)}`]
  return `${path}?${[...kept, ...appended].join("&")}`
}
