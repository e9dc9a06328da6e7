// Types that cannot be swapped (docs/architecture.md §Branded ids and hashes): ids and secret hashes are branded, so
// the compiler refuses a raw string, or one kind of id, where another is expected. The `@ts-expect-error` lines are the
// test: `tsc --noEmit` (npm test runs it first) fails if any of them stops being an error. The runtime tests check that
// the brands cost nothing at run time and that the Secrets port is what makes a SecretHash.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import {
  ApiKeyId,
  type ApiKeyStoreShape,
  ConnectionId,
  type Membership,
  PeopleStore,
  SecretHash,
  Secrets,
  type SecretsShape,
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
