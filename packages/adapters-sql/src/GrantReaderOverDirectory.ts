// The token endpoint's reads (GrantReader) when the Directory is the host's: the connection, client and code are read
// as GrantReaderSql reads them, and the approver's role, which GrantReaderSql joins from adgate's memberships table, is
// asked of the Directory at each refresh instead (spec §States: Connection; a Directory that cannot answer is
// Unconfirmed, the 24-hour grace). One read of the host's more per refresh; the exchange's reads are unchanged.
import { Directory, GrantReader, type RefreshGrounds } from "@adgate/core"
import { Effect, Layer, Option } from "effect"
import type { SqlClient } from "effect/sql"
import { GrantReaderSql } from "./GrantReaderSql.ts"

export const GrantReaderOverDirectory: Layer.Layer<GrantReader, never, SqlClient.SqlClient | Directory> = Layer.effect(GrantReader, Effect.gen(function* () {
  const inner = yield* Effect.service(GrantReader).pipe(Effect.provide(GrantReaderSql))
  const directory = yield* Directory
  const withRole = (grounds: Option.Option<RefreshGrounds>) =>
    Option.isNone(grounds)
      ? Effect.succeed(grounds)
      : directory.role(grounds.value.connection.workspaceId, grounds.value.connection.approverId).pipe(
        Effect.map((role): RefreshGrounds["role"] => ({ _tag: "Confirmed", role: Option.getOrNull(role) })),
        Effect.orElseSucceed((): RefreshGrounds["role"] => ({ _tag: "Unconfirmed" })),
        Effect.map((role) => Option.some({ ...grounds.value, role }))
      )
  return GrantReader.of({
    ...inner,
    refreshGrounds: (refreshHash) => Effect.flatMap(inner.refreshGrounds(refreshHash), withRole),
    clientAndRefreshGrounds: (clientId, refreshHash) =>
      Effect.flatMap(inner.clientAndRefreshGrounds(clientId, refreshHash), (read) =>
        Effect.map(withRole(read.grounds), (grounds) => ({ ...read, grounds })))
  })
}))
