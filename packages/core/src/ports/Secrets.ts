// Random secrets and their hashes. Every code, token, key and client secret is made and hashed here,
// so the rest of the core never touches randomness or crypto directly.
import { Context, Effect, Schema } from "effect"

/** The prefixes of the spec's secrets and identifiers (§Tokens and codes, §Resources). */
export const Prefix = {
  authorizationCode: "apo_ac_",
  accessToken: "apo_at_",
  refreshToken: "apo_rt_",
  apiKey: "ap_live_",
  clientId: "apc_",
  clientSecret: "apcs_",
  writeRequest: "rwq_",
  task: "task_",
  connection: "con_",
  consentPage: "cp_",
  audit: "aud_",
  mail: "mail_",
  user: "usr_",
  workspace: "ws_",
  apiKeyId: "key_",
  session: "ses_",
  csrf: "csrf_",
  toolUsage: "use_"
} as const
export type Prefix = (typeof Prefix)[keyof typeof Prefix]

/**
 * The SHA-256 of a secret, base64url: the only form in which a secret is stored and looked up. Made by
 * `Secrets.hash` (and read back from storage through the records' Schemas), so a raw code, token or key can never be
 * passed where a hash is expected.
 */
export const SecretHash = Schema.String.pipe(Schema.brand("SecretHash"))
export type SecretHash = typeof SecretHash.Type

export interface SecretsShape {
  /** `prefix` + 256 bits of randomness, base64url: for codes, tokens, keys, secrets and ids alike. */
  readonly generate: (prefix: Prefix) => Effect.Effect<string>
  /** SHA-256 of the value, base64url: the only form in which secrets are stored and looked up. */
  readonly hash: (value: string) => Effect.Effect<SecretHash>
}

export class Secrets extends Context.Service<Secrets, SecretsShape>()("core/ports/Secrets") {}
