// GrantReader over the other ports (memory stores and Directory): the same answers as the one-statement SQL reads,
// made of the reads the services made before (packages/adapters-sql/test/contracts/GrantReader.contract.ts).
import { Effect, Layer, Option } from "effect"
import { connectionMailRecipients } from "../../audit/mailAdminsOfConnection.ts"
import type { RoleAnswer } from "../../connections/transitionConnection.ts"
import { Directory } from "../Directory.ts"
import { GrantReader } from "../GrantReader.ts"
import { CodeStore, ConnectionStore } from "../Stores.ts"

export const GrantReaderMemory = Layer.effect(GrantReader, Effect.gen(function* () {
  const connections = yield* ConnectionStore
  const codes = yield* CodeStore
  const directory = yield* Directory
  return GrantReader.of({
    refreshGrounds: (refreshHash) =>
      Effect.gen(function* () {
        const found = yield* connections.findByRefreshHash(refreshHash)
        if (Option.isNone(found)) return Option.none()
        const connection = found.value
        const role = yield* directory.role(connection.workspaceId, connection.approverId).pipe(
          Effect.map((r): RoleAnswer => ({ _tag: "Confirmed", role: Option.getOrNull(r) })),
          Effect.catchTag("DirectoryUnavailable", () => Effect.succeed<RoleAnswer>({ _tag: "Unconfirmed" }))
        )
        return Option.some({ connection, role })
      }),
    exchangeGrounds: (codeHash) =>
      Effect.gen(function* () {
        const found = yield* codes.findByHash(codeHash)
        if (Option.isNone(found)) return Option.none()
        const recipients = yield* connectionMailRecipients(found.value.workspaceId, found.value.userId).pipe(
          Effect.provideService(Directory, directory))
        return Option.some({ code: found.value, recipients })
      })
  })
}))
