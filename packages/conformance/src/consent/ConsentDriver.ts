// A consent driver: how the kit gets a person's "Allow" on a server's own pages. Every server asks differently (sign
// in, consent, a delay, a workspace choice), so this is the one part a user writes for a server the kit does not know
// (docs/conformance.md, "Writing a consent driver"). It must behave as a person with a browser would: follow the
// authorization URL, answer the server's pages over HTTP, and hand back where the server finally redirects to.

export interface ConsentDriver {
  /** Shown in reports. */
  readonly name: string
  /**
   * Opens `authorizationUrl` as a person would and approves everything it asks for. Resolves with the URL the server
   * redirected the browser to at `redirectUri` (carrying `code`, `state`, maybe `iss`, or an `error`); rejects when
   * the pages could not be got through (the message says which page and why).
   */
  readonly approve: (authorizationUrl: URL, redirectUri: string) => Promise<URL>
}

/** Whether `location` is the client's redirect_uri (same origin and path), so the browser would leave the server. */
export const isRedirectUri = (location: URL, redirectUri: string): boolean => {
  const target = new URL(redirectUri)
  return location.origin === target.origin && location.pathname === target.pathname
}
