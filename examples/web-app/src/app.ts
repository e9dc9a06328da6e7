// The web app: its own sign-in page and session cookie, its own route (/campaigns), and adgate mounted at its origin
// for exactly the paths adgate owns. adgate reads the app's people and workspaces (directory), asks the app who is
// signed in (the app's cookie), offers the app's ad platform to AI apps, and hands its mail to the app.
import { createAdgate, type Adgate, type HostDirectory, type HostMail, type MailMessage } from "adgate"
import { Hono } from "hono"
import { getCookie, setCookie } from "hono/cookie"
import { html } from "hono/html"
import { acmeAds } from "./adPlatform.ts"
import { type Data, passwordMatches, type User, type Workspace } from "./data.ts"

const sessionCookie = "webapp_session"

const directoryOf = (data: Data): HostDirectory => {
  const person = (u: User | undefined) => (u === undefined ? null : { id: u.id, email: u.email, name: u.name })
  const roles = (filter: (workspaceId: string, userId: string) => boolean) =>
    [...data.members.entries()].map(([key, role]) => {
      const [workspaceId, userId] = key.split(" ") as [string, string]
      return { workspaceId, userId, role }
    }).filter((m) => filter(m.workspaceId, m.userId))
  return {
    user: async (id) => person(data.users.get(id)),
    userByEmail: async (email) => person([...data.users.values()].find((u) => u.email.toLowerCase() === email.toLowerCase())),
    workspace: async (id) => data.workspaces.get(id) ?? null,
    role: async (workspaceId, userId) => data.roleOf(workspaceId, userId),
    workspacesOf: async (userId) => roles((_, u) => u === userId).map((m) => ({ workspace: data.workspaces.get(m.workspaceId) as Workspace, role: m.role })),
    members: async (workspaceId) => roles((w) => w === workspaceId).map((m) => ({ user: person(data.users.get(m.userId))!, role: m.role }))
  }
}

export interface WebApp {
  readonly app: Hono
  readonly adgate: Adgate
  /** Every mail adgate handed to the app, newest last (the app would send them; here it keeps them). */
  readonly outbox: Array<MailMessage>
}

/** The app at `origin`, on its data; adgate keeps its own state in `database` (PostgreSQL or PGlite). */
export const makeWebApp = (data: Data, origin: string, database: Parameters<typeof createAdgate>[0]["database"]): WebApp => {
  const outbox: Array<MailMessage> = []
  const mail: HostMail = { send: async (message) => void outbox.push(message) }
  const adgate = createAdgate({
    baseUrl: origin,
    database,
    directory: directoryOf(data),
    signIn: {
      // The app's session id is secret to the browser and fixed for the session's life: adgate binds its CSRF tokens to it.
      current: async (request) => {
        const id = request.cookies[sessionCookie]
        const user = data.sessionUser(id)
        return user === null || id === undefined ? null : { userId: user.id, sessionKey: id }
      },
      signInUrl: (returnTo) => `/login?${new URLSearchParams({ return_to: returnTo })}`,
      signOutUrl: "/logout"
    },
    platforms: acmeAds(data),
    mail,
    log: "none"
  })

  const app = new Hono()
  // adgate first: its paths go to its fetch handler, everything else falls through to the app's own routes.
  app.use(async (c, next) => (adgate.owns(c.req.path) ? adgate.fetch(c.req.raw) : next()))

  const signedIn = (cookie: string | undefined) => data.sessionUser(cookie)
  /** Only a path on this origin is a place to return to (no open redirect). */
  const safeReturn = (value: string | undefined) => {
    if (value === undefined) return "/"
    const target = new URL(value, origin)
    return target.origin === origin ? `${target.pathname}${target.search}` : "/"
  }

  app.get("/", (c) => {
    const user = signedIn(getCookie(c, sessionCookie))
    return c.html(html`<!doctype html><title>Acme Ads</title><h1>Acme Ads</h1>
${user === null ? html`<p><a href="/login">Sign in</a></p>` : html`<p>Signed in as ${user.name}. <a href="/campaigns">Campaigns</a></p>`}`)
  })

  app.get("/login", (c) => c.html(html`<!doctype html><title>Sign in · Acme Ads</title><h1>Sign in</h1>
<form method="post" action="/login">
<input type="hidden" name="return_to" value="${safeReturn(c.req.query("return_to"))}">
<label>Email <input name="email" type="email" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button>Sign in</button>
</form>`))

  app.post("/login", async (c) => {
    const form = await c.req.parseBody()
    const email = String(form["email"] ?? "").toLowerCase()
    const user = [...data.users.values()].find((u) => u.email.toLowerCase() === email)
    if (user === undefined || !passwordMatches(user, String(form["password"] ?? ""))) return c.text("Wrong email or password.", 401)
    setCookie(c, sessionCookie, data.openSession(user.id), { httpOnly: true, sameSite: "Lax", secure: origin.startsWith("https:"), path: "/" })
    return c.redirect(safeReturn(String(form["return_to"] ?? "/")), 303)
  })

  app.get("/logout", (c) => {
    const id = getCookie(c, sessionCookie)
    if (id !== undefined) data.sessions.delete(id)
    setCookie(c, sessionCookie, "", { maxAge: 0, path: "/" })
    return c.redirect("/", 303)
  })

  // The app's own route: the signed-in person's campaigns, from the app's own tables.
  app.get("/campaigns", (c) => {
    const user = signedIn(getCookie(c, sessionCookie))
    if (user === null) return c.redirect(`/login?return_to=/campaigns`, 303)
    const mine = [...data.campaigns.values()].filter((campaign) => data.roleOf(campaign.workspaceId, user.id) !== null)
    return c.json({ campaigns: mine })
  })

  return { app, adgate, outbox }
}
