// GrantReader over the other ports (memory stores and Directory): the same answers as the one-statement SQL reads,
// made of the reads the services made before (packages/contract-kit/src/contracts/GrantReader.contract.ts).
import { Effect, Layer, Option } from "effect"
import type { RoleAnswer } from "../connections/transitionConnection.ts"
import { Directory } from "../ports/Directory.ts"
import { GrantReader } from "../ports/GrantReader.ts"
import { ClientStore } from "../ports/ClientStore.ts"
import { CodeStore } from "../ports/CodeStore.ts"
import { ConnectionStore } from "../ports/ConnectionStore.ts"
import type { SecretHash } from "../ports/Secrets.ts"

export const GrantReaderMemory = Layer.effect(GrantReader, Effect.gen(function* () {
  const connections = yield* ConnectionStore
  const codes = yield* CodeStore
  const clients = yield* ClientStore
  const directory = yield* Directory
  const refreshGrounds = (refreshHash: SecretHash) =>
    Effect.gen(function* () {
      const found = yield* connections.findByRefreshHash(refreshHash)
      if (Option.isNone(found)) return Option.none()
      const connection = found.value
      const role = yield* directory.role(connection.workspaceId, connection.approverId).pipe(
        Effect.map((r): RoleAnswer => ({ _tag: "Confirmed", role: Option.getOrNull(r) })),
        Effect.catchTag("DirectoryUnavailable", () => Effect.succeed<RoleAnswer>({ _tag: "Unconfirmed" }))
      )
      return Option.some({ connection, role })
    })
  return GrantReader.of({
    refreshGrounds,
    clientAndRefreshGrounds: (clientId, refreshHash) =>
      Effect.gen(function* () {
        const client = yield* clients.find(clientId)
        return { client, grounds: yield* refreshGrounds(refreshHash) }
      }),
    clientAndCode: (clientId, codeHash) =>
      Effect.gen(function* () {
        const client = yield* clients.find(clientId)
        return { client, code: yield* codes.findByHash(codeHash) }
      }),
    recheckExchange: (codeHash, clientId) =>
      Effect.gen(function* () {
        const code = yield* codes.findByHash(codeHash)
        const client = yield* clients.find(clientId)
        return {
          codeVersion: Option.match(code, { onNone: () => null, onSome: (c) => c.version }),
          clientUsable: Option.isSome(client) && client.value.removedAt === null
        }
      })
  })
}))
