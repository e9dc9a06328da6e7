// The migration set, in id order. Forward-only: never edit a file once released; add `000N_<name>.ts` and one line
// here.
import type { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import oauth from "./0001_oauth.ts"
import operations from "./0002_operations.ts"
import codeChallengeIndex from "./0003_code_challenge_index.ts"
import outbox from "./0004_outbox.ts"
import pipeline from "./0006_pipeline.ts"
import taskRunner from "./0007_task_runner.ts"
import connectionExpiryIndex from "./0008_connection_expiry_index.ts"
import outboxDoneIndex from "./0009_outbox_done_index.ts"
import refreshHashPurge from "./0010_refresh_hash_purge.ts"
import outboxLegacyWriteQueued from "./0011_outbox_legacy_write_queued.ts"
import clientProduct from "./0012_client_product.ts"
import usageByCredentialIndexes from "./0013_usage_by_credential_indexes.ts"
import historyPages from "./0014_history_pages.ts"
import budgetDayCap from "./0015_budget_day_cap.ts"
import mailClaim from "./0016_mail_claim.ts"
import creditsKeptToSixDecimals from "./0017_credits_kept_to_six_decimals.ts"

export const migrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>> = {
  "0001_oauth": oauth,
  "0002_operations": operations,
  "0003_code_challenge_index": codeChallengeIndex,
  "0004_outbox": outbox,
  "0006_pipeline": pipeline,
  "0007_task_runner": taskRunner,
  "0008_connection_expiry_index": connectionExpiryIndex,
  "0009_outbox_done_index": outboxDoneIndex,
  "0010_refresh_hash_purge": refreshHashPurge,
  "0011_outbox_legacy_write_queued": outboxLegacyWriteQueued,
  "0012_client_product": clientProduct,
  "0013_usage_by_credential_indexes": usageByCredentialIndexes,
  "0014_history_pages": historyPages,
  "0015_budget_day_cap": budgetDayCap,
  "0016_mail_claim": mailClaim,
  "0017_credits_kept_to_six_decimals": creditsKeptToSixDecimals
}
