// The management pages' tests run against the real test server on the in-memory stores, on SQL over PGlite and, when
// DATABASE_URL is set, on a fresh PostgreSQL database; a person signs in over HTTP and posts the pages' forms with the
// CSRF token the page itself carries.
import { Effect, Exit, Option, Scope } from "effect"
import { databaseUrl, freshPostgresDatabase, tempDataDir } from "../../../adapters-sql/test/databases.ts"
import { csrfTokenIn, startTestServer, startTestServerSql, type TestServer } from "../support/testServer.ts"

export type PageServer = Omit<TestServer, "directory">

export interface StartedServer {
  readonly server: PageServer
  readonly close: () => Promise<void>
}

/** Each store the suites run on: its name, whether it runs, and how to start a server on it. */
export const pageServers: ReadonlyArray<readonly [string, boolean, () => Promise<StartedServer>]> = [
  ["memory", true, async () => {
    const server = await startTestServer()
    return { server, close: () => server.close() }
  }],
  ["PGlite", true, async () => {
    const server = await startTestServerSql(tempDataDir())
    return { server, close: () => server.close() }
  }],
  ["PostgreSQL", Option.isSome(databaseUrl), async () => {
    const scope = Effect.runSync(Scope.make())
    const url = await Effect.runPromise(Scope.provide(freshPostgresDatabase(Option.getOrElse(databaseUrl, () => "")), scope))
    const server = await startTestServerSql(tempDataDir(), { databaseUrl: url })
    return { server, close: async () => { await server.close(); await Effect.runPromise(Scope.close(scope, Exit.void)) } }
  }]
]

export interface PageAnswer {
  readonly status: number
  readonly headers: Headers
  readonly text: string
}

const answerOf = async (response: Response): Promise<PageAnswer> =>
  ({ status: response.status, headers: response.headers, text: await response.text() })

/** A signed-in person: GET a page, and POST a form with the CSRF token of their session (or the one given). */
export const browser = async (server: PageServer, who: "admin" | "editor" | "viewer") => {
  const cookie = await server.signIn(server.users[who].email, server.users[who].password)
  /** GET a page, with another cookie (a notice's `name=value`) beside the session's when given. */
  const get = async (path: string, extraCookie?: string) =>
    answerOf(await server.get(path, extraCookie === undefined ? cookie : `${cookie}; ${extraCookie}`))
  let token: string | null = null
  const csrf = async () => token ??= csrfTokenIn((await get("/account")).text)
  const post = async (path: string, fields: Readonly<Record<string, string>> | ReadonlyArray<readonly [string, string]>, options: { readonly csrf?: string | null } = {}) => {
    const entries = Array.isArray(fields) ? fields as ReadonlyArray<readonly [string, string]> : Object.entries(fields)
    const submitted = options.csrf === undefined ? await csrf() : options.csrf
    const body = new URLSearchParams([...entries.map(([k, v]) => [k, v]), ...(submitted === null ? [] : [["csrf_token", submitted]])])
    return answerOf(await server.fetch(path, {
      method: "POST", body: body.toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", origin: server.origin, cookie }
    }))
  }
  // Sessions start in the person's first workspace, whose order differs between stores: work in the paid one.
  const switched = await post("/session/workspace", { workspace_id: server.workspaces.paid.id, return_to: "/" })
  if (switched.status !== 303) throw new Error(`the workspace switch answered ${switched.status}`)
  return { cookie, get, post, csrf, user: server.users[who] }
}

export type Browser = Awaited<ReturnType<typeof browser>>

/** The admin, the editor and the viewer, each signed in and working in the paid workspace. */
export const signedIn = async (server: PageServer) =>
  ({ admin: await browser(server, "admin"), editor: await browser(server, "editor"), viewer: await browser(server, "viewer") })

/** `cookie` with the notice cookie an answer set (its `name=value`) beside it, as a browser sends both on its next GET. */
export const withNoticeFrom = (cookie: string, answer: { readonly headers: Headers }): string => {
  const notice = answer.headers.getSetCookie().find((c) => c.startsWith("adgate_notice="))
  return notice === undefined ? cookie : `${cookie}; ${notice.split(";")[0]}`
}

/** The notice cookie of an answer (`adgate_notice=…` with its attributes), or undefined. */
export const noticeCookieOf = (answer: PageAnswer): string | undefined =>
  answer.headers.getSetCookie().find((c) => c.startsWith("adgate_notice="))

/** The text of a page's `<p class="notice">`, unescaped, or null when it shows none. */
export const noticeShownIn = (page: string): string | null => {
  const match = /<p class="notice" role="status">([^<]*)<\/p>/.exec(page)
  return match === null ? null : match[1]!
    .replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", "\"").replaceAll("&#39;", "'").replaceAll("&amp;", "&")
}

/**
 * The notice a 303 after a post leaves, as the page it leads to shows it: follows the redirect as a browser does,
 * with the session and the notice cookie the 303 set. "" when the page shows none.
 */
export const noticeIn = async (who: Browser, answer: PageAnswer): Promise<string> => {
  const location = answer.headers.get("location") ?? "/"
  const notice = noticeCookieOf(answer)?.split(";")[0]
  const page = await who.get(location, notice)
  return noticeShownIn(page.text) ?? ""
}
