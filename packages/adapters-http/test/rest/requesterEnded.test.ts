// A write proposed by an app the workspace stopped trusting never applies (docs/decisions.md, Write requests), over
// the real HTTP surface: a write queued through REST with an OAuth access token, then the app's refresh token revoked
// at /oauth/revoke (the connection ends) — or with an API key that is then revoked — is withdrawn by the outbox's
// withdrawals reader, refused when a person approves it, and never reaches the platform; an approved write whose
// credential ended before it ran ends failed without a platform call. On the in-memory server, and on PostgreSQL
// with the sandbox platforms when DATABASE_URL is set.
import * as oauth from "oauth4webapi"
import { Effect, Exit, Option, Ref, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  decideAndExecute,
  decideWriteRequest,
  executeWriteRequest,
  findWriteRequest,
  revokeApiKey,
  WriteRequestStore,
  ApiKeyId,
  type WriteRequest,
  WriteRequestId
} from "@adgate/core"
import {
  PlatformsMemoryState,
  type MemoryPlatformState
} from "@adgate/core/testing"
import { drainReaders } from "@adgate/adapters-sql"
import { databaseUrl, freshPostgresDatabase, tempDataDir } from "../../../adapters-sql/test/databases.ts"
import { startTestServer, startTestServerSql, type TestServer } from "../support/testServer.ts"
import { authorizationUrl, connect, discover, insecure, openAuthorization, pkce, registerApp } from "../oauth/oauthClient.ts"
import { createKey, restClient } from "./restClient.ts"

type WebServer = Omit<TestServer, "directory">

/** What each server's platform is: the write to queue, and how to see whether the platform ever applied it. */
interface PlatformUnderTest {
  /** A pause of a running campaign (waits under "Wait for approval"). */
  readonly pause: (server: WebServer, reader: string) => Promise<{ readonly tool: string; readonly args: Record<string, string> }>
  /** The campaign's status on the platform now. */
  readonly statusOf: (server: WebServer, reader: string, args: Record<string, string>) => Promise<string>
  /** Calls the platform applied (memory) — the sandbox has no such counter: its campaigns' status says it. */
  readonly applied: (server: WebServer) => Promise<number | null>
}

const memoryPlatform: PlatformUnderTest = {
  pause: async () => ({ tool: "ads__pause_campaign", args: { accountId: "act_paid", campaignId: "c2" } }),
  statusOf: async (server, _reader, args) => {
    const state = await server.run(Effect.flatMap(PlatformsMemoryState, Ref.get) as Effect.Effect<MemoryPlatformState>)
    return state.campaigns.find((c) => c.id === args["campaignId"])?.status ?? "missing"
  },
  applied: async (server) =>
    (await server.run(Effect.flatMap(PlatformsMemoryState, Ref.get) as Effect.Effect<MemoryPlatformState>)).executions.length
}

/** The sandbox Google Ads: an enabled campaign not touched by another test of this file (each pauses its own). */
const usedCampaigns = new Set<string>()
const sandboxPlatform: PlatformUnderTest = {
  pause: async (server, reader) => {
    const api = restClient(server, reader)
    const accounts = await api.get("/accounts")
    const accountId = accounts.body.accounts.find((a: { platform: string }) => a.platform === "gads").id as string
    const listed = await api.post("/tools/gads__list_campaigns", { accountId })
    const campaign = (listed.body.result.results as Array<{ id: string; status: string }>)
      .find((c) => c.status === "ENABLED" && !usedCampaigns.has(c.id))
    if (campaign === undefined) throw new Error("no enabled sandbox campaign left")
    usedCampaigns.add(campaign.id)
    return { tool: "gads__pause_campaign", args: { accountId, campaignId: campaign.id } }
  },
  statusOf: async (server, reader, args) => {
    const listed = await restClient(server, reader).post("/tools/gads__list_campaigns", { accountId: args["accountId"] })
    return (listed.body.result.results as Array<{ id: string; status: string }>).find((c) => c.id === args["campaignId"])?.status ?? "missing"
  },
  applied: async () => null
}

const suite = (name: string, start: () => Promise<{ server: WebServer; close: () => Promise<void> }>, platform: PlatformUnderTest) =>
  describe(name, () => {
    let server: WebServer
    let close: () => Promise<void>
    let as: oauth.AuthorizationServer
    let adminCookie: string
    /** A key that only reads: what the checks use to look at requests and the platform. */
    let reader: string

    beforeAll(async () => {
      ({ server, close } = await start())
      as = await discover(server)
      adminCookie = await server.signIn(server.users.admin.email, server.users.admin.password)
      await workInPaidWorkspace()
      reader = await createKey(server, { scopes: ["tools:read", "accounts:read"] })
    }, 120_000)
    afterAll(async () => { await close?.() })

    /**
     * The admin is in two workspaces and a session starts in either: when it is the other one, the consent page offers
     * to switch, which is done here once, as a person would, so that every connection below is the paid workspace's.
     */
    const workInPaidWorkspace = async () => {
      const redirectUri = "https://probe.example/cb"
      const probe = await registerApp(server, { type: "public", redirectUris: [redirectUri], name: "Workspace probe" })
      const url = authorizationUrl(as, {
        response_type: "code", client_id: probe.client.clientId, redirect_uri: redirectUri,
        code_challenge: (await pkce()).challenge, code_challenge_method: "S256", state: "probe", scope: "tools:read"
      })
      const html = await (await openAuthorization(server, url, adminCookie)).text()
      if (html.includes('action="/oauth/consent"')) return // already the paid workspace: the consent form itself
      const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1]?.replaceAll("&amp;", "&") ?? ""
      expect(field("workspace_id")).toBe(server.workspaces.paid.id)
      const switched = await server.postForm("/session/workspace", {
        csrf_token: field("csrf_token"), workspace_id: field("workspace_id"), return_to: field("return_to")
      }, adminCookie)
      expect(switched.status).toBe(303)
      await switched.body?.cancel()
    }

    const workspaceId = () => server.workspaces.paid.id
    const requestOf = (id: string) => server.run(findWriteRequest(workspaceId(), WriteRequestId.make(id)).pipe(Effect.orDie))
    const approve = (id: WriteRequestId, argumentsHash: string) =>
      server.run(Effect.result(decideAndExecute({ id, workspaceId: workspaceId(), deciderId: server.users.editor.id, decision: "approve", argumentsHash })))
    const pendingIds = async () =>
      (await server.run(Effect.flatMap(WriteRequestStore, (s) => s.listPending(workspaceId())).pipe(Effect.orDie))).map((r) => r.id)

    /** An app connected for the REST API with "Wait for approval": its client and its tokens. */
    const connectWaitingApp = async () => {
      const redirectUri = "https://host.example/cb"
      const app = await registerApp(server, { type: "public", redirectUris: [redirectUri], name: "Untrusted host" })
      const client = { client_id: app.client.clientId }
      const { tokens } = await connect(server, as, {
        client, auth: oauth.None(), redirectUri, cookie: adminCookie, scope: "tools:read tools:write",
        resource: `${server.origin}/api/v1`, choice: { scopes: ["tools:read", "tools:write"], writeMode: "wait" }
      })
      return { client, tokens }
    }

    /** Queues the pause with `credential`: 202 pending. */
    const queuePause = async (credential: string) => {
      const write = await platform.pause(server, reader)
      const queued = await restClient(server, credential).post(`/tools/${write.tool}`, write.args)
      expect(queued.status).toBe(202)
      expect(queued.body.status).toBe("pending_approval")
      return { ...write, requestId: queued.body.requestId as string }
    }

    /** Queues the pause with a new API key whose writes wait: the key, the write and its stored request. */
    const queuePauseWithNewKey = async () => {
      const key = await createKey(server, { scopes: ["tools:read", "tools:write"], toolWrites: "wait" })
      const write = await queuePause(key)
      return { key, write, request: await requestOf(write.requestId) }
    }

    /** The workspace admin revokes the API key that asked for `request`. */
    const revokeKeyOf = (request: WriteRequest) =>
      server.run(revokeApiKey({ keyId: request.apiKeyId ?? ApiKeyId.make(""), workspaceId: workspaceId(), actorId: server.users.admin.id }).pipe(Effect.orDie))

    it("a connection ended at /oauth/revoke: its pending write is withdrawn, approving it is refused, the platform never saw it", async () => {
      const { client, tokens } = await connectWaitingApp()
      const write = await queuePause(tokens.access_token)
      const appliedBefore = await platform.applied(server)
      // The app disconnects itself (RFC 7009 with its refresh token): the connection ends.
      const revoked = await oauth.revocationRequest(as, client, oauth.None(), tokens.refresh_token ?? "", insecure)
      expect(revoked.status).toBe(200)
      expect((await restClient(server, tokens.access_token).get(`/requests/${write.requestId}`)).status).toBe(401)
      // The outbox's readers run (the server does every few seconds): the request leaves the queue.
      await server.run(drainReaders)
      expect(await pendingIds()).not.toContain(write.requestId)
      const seen = await restClient(server, reader).get(`/requests/${write.requestId}`)
      expect(seen.status).toBe(200)
      expect(seen.body.result).toMatchObject({ status: "rejected", providerStatus: null })
      expect(seen.body.result.providerBody).toMatchObject({ error: "requester_ended", reason: "revoked" })
      const request = await requestOf(write.requestId)
      const decided = await approve(request.id, request.argumentsHash)
      expect(decided._tag === "Failure" ? decided.failure._tag : "approved").toBe("WriteRequestNotPending")
      expect(await platform.statusOf(server, reader, write.args)).toBe("ENABLED")
      expect(await platform.applied(server)).toBe(appliedBefore)
    }, 60_000)

    it("approving before the withdrawals reader ran is refused (requester_ended) and withdraws the request; nothing is applied", async () => {
      const { client, tokens } = await connectWaitingApp()
      const write = await queuePause(tokens.access_token)
      await oauth.revocationRequest(as, client, oauth.None(), tokens.refresh_token ?? "", insecure)
      const request = await requestOf(write.requestId)
      const decided = await approve(request.id, request.argumentsHash)
      expect(decided._tag).toBe("Failure")
      if (decided._tag !== "Failure") return
      expect(decided.failure).toMatchObject({ _tag: "RequesterEnded", credentialId: request.connectionId, reason: "revoked" })
      expect((await requestOf(write.requestId)).status).toBe("rejected")
      expect(await pendingIds()).not.toContain(write.requestId)
      // The reader finds nothing left to do afterwards.
      await server.run(drainReaders)
      expect((await requestOf(write.requestId)).decidedBy).toBeNull()
      expect(await platform.statusOf(server, reader, write.args)).toBe("ENABLED")
    }, 60_000)

    it("an API key revoked: its pending write is withdrawn and cannot be approved; the platform never saw it", async () => {
      const { key, write, request } = await queuePauseWithNewKey()
      await revokeKeyOf(request)
      expect((await restClient(server, key).get(`/requests/${write.requestId}`)).status).toBe(401)
      await server.run(drainReaders)
      const seen = await restClient(server, reader).get(`/requests/${write.requestId}`)
      expect(seen.body.result).toMatchObject({ status: "rejected" })
      expect(seen.body.result.providerBody).toMatchObject({ error: "requester_ended", credential: request.apiKeyId, reason: "key_revoked" })
      const decided = await approve(request.id, request.argumentsHash)
      expect(decided._tag === "Failure" ? decided.failure._tag : "approved").toBe("WriteRequestNotPending")
      expect(await platform.statusOf(server, reader, write.args)).toBe("ENABLED")
    }, 60_000)

    it("approved but not yet run when the key is revoked: it ends failed (requester_ended) without a platform call", async () => {
      const { write, request } = await queuePauseWithNewKey()
      const appliedBefore = await platform.applied(server)
      // Approved (the process that approved has not run it yet), then the key is revoked.
      await server.run(decideWriteRequest({
        id: request.id, workspaceId: workspaceId(), deciderId: server.users.editor.id, decision: "approve", argumentsHash: request.argumentsHash
      }).pipe(Effect.orDie))
      await revokeKeyOf(request)
      await server.run(drainReaders)
      expect((await requestOf(write.requestId)).status).toBe("approved")
      const ran = await server.run(executeWriteRequest(request.id).pipe(Effect.orDie))
      expect(ran).toMatchObject({ status: "failed", providerStatus: null, result: { error: "requester_ended", reason: "key_revoked" } })
      const seen = await restClient(server, reader).get(`/requests/${write.requestId}`)
      expect(seen.body.result).toMatchObject({ status: "failed", providerStatus: null })
      expect(await platform.statusOf(server, reader, write.args)).toBe("ENABLED")
      expect(await platform.applied(server)).toBe(appliedBefore)
    }, 60_000)
  })

suite("a write proposed by an ended credential never applies (in memory)", async () => {
  const server = await startTestServer()
  return { server, close: () => server.close() }
}, memoryPlatform)

describe.skipIf(Option.isNone(databaseUrl))("requester ended on PostgreSQL", () => {
  suite("a write proposed by an ended credential never applies, on PostgreSQL with the sandbox platforms", async () => {
    const scope = Effect.runSync(Scope.make())
    const url = await Effect.runPromise(Scope.provide(freshPostgresDatabase(Option.getOrElse(databaseUrl, () => "")), scope))
    const server = await startTestServerSql(tempDataDir(), { databaseUrl: url })
    return { server, close: async () => { await server.close(); await Effect.runPromise(Scope.close(scope, Exit.void)) } }
  }, sandboxPlatform)
})
