// The tool pipeline on the SQL stores (pipelineLimits.test.ts, pipelineRaces.test.ts): core's callTool and the write
// requests' execution over SqlStores, Web Crypto secrets, the in-memory tool search and platforms, and the service's
// Ajv validator, with the test's own seed on top.
import { type MemoryPlatformState, PlatformsMemory, SecretsWebCrypto, ToolSearchMemory } from "@adgate/core/testing"
import { ArgumentValidatorAjv } from "@adgate/adapters-jsonschema"
import { Layer } from "effect"
import type { SqlClient } from "effect/sql"
import { SqlStores } from "../src/index.ts"

/** `seed` run once over the pipeline's ports on `database`, with the memory platforms holding `platform`. */
export const pipelineWorld = <E, R>(
  seed: Layer.Layer<never, E, R>, platform: Partial<MemoryPlatformState>, database: Layer.Layer<SqlClient.SqlClient, unknown>
) => seed.pipe(Layer.provideMerge(Layer.mergeAll(
  SqlStores, SecretsWebCrypto, ToolSearchMemory, ArgumentValidatorAjv, PlatformsMemory(platform)
).pipe(Layer.provideMerge(database))))
