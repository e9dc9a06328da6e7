// A small HTTP "browser" for consent drivers: a cookie jar per person, redirects followed by hand (the driver must
// see the one that leaves for the client's redirect_uri), forms posted as a browser would (Origin header included,
// which servers check against CSRF).
export interface Page {
  readonly url: URL
  readonly status: number
  readonly location: URL | null
  readonly text: string
}

export class Browser {
  private readonly cookies = new Map<string, Map<string, string>>()

  private cookieHeader(url: URL): string | undefined {
    const jar = this.cookies.get(url.host)
    if (jar === undefined || jar.size === 0) return undefined
    return [...jar.entries()].map(([k, v]) => `${k}=${v}`).join("; ")
  }

  private keep(url: URL, response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";")
      const at = pair?.indexOf("=") ?? -1
      if (pair === undefined || at <= 0) continue
      const jar = this.cookies.get(url.host) ?? new Map<string, string>()
      const expired = /;\s*max-age=0/i.test(line) || /;\s*expires=Thu, 01 Jan 1970/i.test(line)
      if (expired) jar.delete(pair.slice(0, at).trim())
      else jar.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim())
      this.cookies.set(url.host, jar)
    }
  }

  /** One request, no redirect followed. */
  async request(url: URL, init: { readonly method?: string; readonly form?: URLSearchParams } = {}): Promise<Page> {
    const headers: Record<string, string> = { accept: "text/html" }
    const cookie = this.cookieHeader(url)
    if (cookie !== undefined) headers.cookie = cookie
    if (init.form !== undefined) {
      headers["content-type"] = "application/x-www-form-urlencoded"
      headers.origin = url.origin
    }
    const response = await fetch(url, {
      method: init.method ?? (init.form === undefined ? "GET" : "POST"),
      headers,
      ...(init.form === undefined ? {} : { body: init.form.toString() }),
      redirect: "manual",
      signal: AbortSignal.timeout(30_000)
    })
    this.keep(url, response)
    const location = response.headers.get("location")
    return { url, status: response.status, location: location === null ? null : new URL(location, url), text: await response.text() }
  }
}

/** The value of the first `<input name="…" value="…">` in `html` (attributes in either order). */
export const inputValue = (html: string, name: string): string | undefined => {
  for (const tag of html.match(/<input\b[^>]*>/g) ?? []) {
    if (attribute(tag, "name") === name) return attribute(tag, "value")
  }
  return undefined
}

/** An attribute of one tag, HTML entities of the value decoded. */
export const attribute = (tag: string, name: string): string | undefined => {
  const match = new RegExp(`\\s${name}="([^"]*)"`).exec(tag)
  return match?.[1] === undefined ? undefined : decodeEntities(match[1])
}

export const decodeEntities = (text: string): string =>
  text.replace(/&(amp|lt|gt|quot|#39|#x27|#x2F);/g, (_, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: "\"", "#39": "'", "#x27": "'", "#x2F": "/" })[e] ?? "")

/** The forms of a page: their action and their tags, in document order. */
export const forms = (html: string): ReadonlyArray<{ readonly action: string | undefined; readonly method: string; readonly body: string }> =>
  [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)].map((m) => ({
    action: attribute(` ${m[1] ?? ""}`, "action"),
    method: (attribute(` ${m[1] ?? ""}`, "method") ?? "get").toLowerCase(),
    body: m[2] ?? ""
  }))
