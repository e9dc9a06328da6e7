// The paths adgate answers (docs/embedding.md, The paths adgate owns): a host mounts adgate for exactly these and
// keeps every other path. Each entry is a path and everything below it.
export const adgatePaths: ReadonlyArray<string> = [
  // Discovery (RFC 8414 §3, RFC 9728 §3.1), with the resource's path after the well-known name.
  "/.well-known/oauth-authorization-server",
  "/.well-known/oauth-protected-resource",
  // The OAuth endpoints and the consent page.
  "/oauth",
  // The two protected resources.
  "/api/v1",
  "/api/mcp",
  // adgate's own sign-in (used unless the host signs people in), the workspace switch, the management pages and the
  // development mailbox, and their stylesheet and script.
  "/signin",
  "/signout",
  "/session",
  "/account",
  "/workspaces",
  "/mailbox",
  "/assets",
  // Liveness and readiness for the host's load balancer (the host may keep its own instead).
  "/health"
]

/** Whether `pathname` is one of adgate's paths or below one. `/` is the host's (adgate's own `/` only redirects). */
export const ownsPath = (pathname: string): boolean =>
  adgatePaths.some((path) => pathname === path || pathname.startsWith(`${path}/`))
