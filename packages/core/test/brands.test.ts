// Types that cannot be swapped (docs/architecture.md §Branded ids and hashes): ids and secret hashes are branded, so
// the compiler refuses a raw string, or one kind of id, where another is expected. The `@ts-expect-error` lines are the
// test: `tsc --noEmit` (npm test runs it first) fails if any of them stops being an error. The runtime tests check that
// the brands cost nothing at run time and that the Secrets port is what makes a SecretHash.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import {
  ApiKeyId,
  type ApiKeyStoreShape,
  ClientId,
  type ClientStoreShape,
  ConnectionId,
  type ConnectionStoreShape,
  ConsentPageId,
  type ConsentStoreShape,
  type DecideConsentInput,
  MailId,
  type MailerShape,
  type Membership,
  PeopleStore,
  type PeopleStoreShape,
  type Principal,
  SecretHash,
  Secrets,
  type SecretsShape,
  TaskId,
  type TaskStoreShape,
  UserId,
  WorkspaceId,
  WriteRequestId,
  type WriteRequestStoreShape
} from "@adgate/core"
import { CoreMemory, SecretsWebCrypto } from "@adgate/core/testing"

const findByHash = (_hash: SecretHash) => Option.none<never>()
const inWorkspace = (_workspaceId: WorkspaceId) => true
const ofUser = (_userId: UserId) => true
const ofConnection = (_connectionId: ConnectionId) => true
const ofClient = (_clientId: ClientId) => true
const ofTask = (_taskId: TaskId) => true

describe("branded ids and hashes", () => {
  it("a raw string is refused where a SecretHash is expected, and a UserId where a WorkspaceId is expected", () => {
    const rawToken = "apo_rt_raw-refresh-token"
    const userId = UserId.make("usr_a")
    const workspaceId = WorkspaceId.make("ws_1")

    // @ts-expect-error a raw token (or any string) is not a SecretHash: only Secrets.hash makes one
    findByHash(rawToken)
    // @ts-expect-error a UserId is not a WorkspaceId
    inWorkspace(userId)
    // @ts-expect-error a raw string is not a WorkspaceId
    inWorkspace("ws_1")
    // @ts-expect-error a WorkspaceId is not a UserId
    ofUser(workspaceId)
    // @ts-expect-error a raw string is not a ConnectionId, nor is another kind of id
    ofConnection("con_1")
    // @ts-expect-error a UserId is not a ConnectionId
    ofConnection(userId)
    // @ts-expect-error a ConnectionId is not an ApiKeyId (a Principal names one or the other)
    const key: ApiKeyId = ConnectionId.make("con_1")
    // @ts-expect-error an MCP task id as it arrives (a raw string) is not a WriteRequestId until the edge brands it
    const pending = (store: WriteRequestStoreShape, taskId: string) => store.find(taskId)
    // @ts-expect-error records refuse a swapped id too
    const swapped: Membership = { workspaceId: userId, userId: workspaceId, role: "admin" }
    // @ts-expect-error a store's lookup by hash refuses the raw key
    const lookUp = (store: ApiKeyStoreShape) => store.findByHash("ap_live_raw-key")
    // @ts-expect-error what Secrets.hash answers is a SecretHash, not a string any function could have made
    const hashOf: SecretsShape["hash"] = (value: string) => Effect.succeed(value)

    // The branded values themselves are accepted, and a brand is still a string to everything that reads one.
    assert.isTrue(inWorkspace(workspaceId) && ofUser(userId) && ofConnection(ConnectionId.make("con_1")))
    assert.strictEqual(`${workspaceId}/${userId}`, "ws_1/usr_a")
    assert.isDefined(swapped)
    assert.strictEqual(key, "con_1")
    assert.isFunction(lookUp)
    assert.isFunction(pending)
    assert.strictEqual(WriteRequestId.make("rwq_1"), "rwq_1")
    assert.isFunction(hashOf)
  })

  it("a raw string, or another kind of id, is refused where a ClientId, TaskId, ConsentPageId or MailId is expected", () => {
    const clientId = ClientId.make("apc_1")
    const connectionId = ConnectionId.make("con_1")
    const taskId = TaskId.make("task_1")
    const requestId = WriteRequestId.make("rwq_1")

    // @ts-expect-error a client_id as a request sends it (a raw string) is not a ClientId until the entry brands it
    ofClient("apc_1")
    // @ts-expect-error a ConnectionId is not a ClientId (an access token and an audit entry carry both)
    ofClient(connectionId)
    // @ts-expect-error a ClientId is not a ConnectionId
    ofConnection(clientId)
    // @ts-expect-error the client store's look-up refuses a raw string (a metadata document's URL included)
    const findClient = (store: ClientStoreShape) => store.find("https://app.example/client.json")
    // @ts-expect-error connections are listed by a ClientId, not by a workspace's id
    const byClient = (store: ConnectionStoreShape) => store.listByClient(WorkspaceId.make("ws_1"))
    // @ts-expect-error records refuse a swapped id: a Principal's clientId is not its connection's id
    const principal: Pick<Principal, "clientId" | "connectionId"> = { clientId: connectionId, connectionId }
    // @ts-expect-error a raw string is not a TaskId
    ofTask("task_1")
    // @ts-expect-error a WriteRequestId is not a TaskId (MCP calls both "tasks"; only one is a workspace task)
    ofTask(requestId)
    // @ts-expect-error a TaskId is not a WriteRequestId
    const pendingOf = (store: WriteRequestStoreShape) => store.find(taskId)
    // @ts-expect-error a REST path parameter (a raw string) is not a TaskId until the route brands it
    const taskOf = (store: TaskStoreShape, param: string) => store.find(param)
    // @ts-expect-error the consent form's page field (a raw string) is not a ConsentPageId until the route brands it
    const pageOf = (store: ConsentStoreShape, field: string) => store.find(field)
    // @ts-expect-error a TaskId is not a ConsentPageId
    const decision: Pick<DecideConsentInput, "pageId"> = { pageId: taskId }
    // @ts-expect-error the outbox finds a mail by its MailId, not by any string
    const mailOf = (mailer: MailerShape) => mailer.find("mail_1")
    // @ts-expect-error a session has no id of its own: it is found by the SecretHash of its secret, never by the secret
    const sessionOf = (store: PeopleStoreShape, cookieValue: string) => store.findSession(cookieValue)

    assert.isTrue(ofClient(clientId) && ofTask(taskId))
    assert.strictEqual(`${clientId}/${taskId}/${ConsentPageId.make("cp_1")}/${MailId.make("mail_1")}`, "apc_1/task_1/cp_1/mail_1")
    assert.isDefined(principal)
    assert.isDefined(decision)
    for (const f of [findClient, byClient, pendingOf, taskOf, pageOf, mailOf, sessionOf]) assert.isFunction(f)
  })

  it("a brand costs nothing at run time: the value is the string itself, and decoding a stored row brands it", () => {
    assert.strictEqual(WorkspaceId.make("ws_1"), "ws_1")
    const decoded = Schema.decodeUnknownSync(Schema.Struct({ workspaceId: WorkspaceId, userId: UserId }))({ workspaceId: "ws_1", userId: "usr_a" })
    assert.deepStrictEqual(decoded, { workspaceId: "ws_1", userId: "usr_a" })
    assert.throws(() => Schema.decodeUnknownSync(WorkspaceId)(42))
  })

  it.effect("Secrets.hash makes the SecretHash a store looks up: the SHA-256 of the value, never the value", () =>
    Effect.gen(function* () {
      const secret = "ses_a-session-cookie-value"
      const hash = yield* (yield* Secrets).hash(secret)
      // RFC 4648 §5 base64url of a 32-byte SHA-256, no padding.
      assert.match(hash, /^[A-Za-z0-9_-]{43}$/)
      assert.notStrictEqual<string>(hash, secret)
      assert.isTrue(Option.isNone(yield* (yield* PeopleStore).findSession(hash)))
    }).pipe(Effect.provide([CoreMemory, SecretsWebCrypto])))
})
