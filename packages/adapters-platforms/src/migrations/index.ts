// The platform adapter's migration set, in id order, recorded in its own table (`adgate_platform_migrations`) so its
// ids never compete with the core store's. Forward-only: never edit a released file; add one and one line here.
import type { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import sandbox from "./0001_sandbox.ts"
import platformIdempotency from "./0002_platform_idempotency.ts"

export const platformMigrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>> = {
  "0001_sandbox": sandbox,
  "0002_platform_idempotency": platformIdempotency
}
