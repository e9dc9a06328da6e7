// A PostgreSQL adapter for oidc-provider 9 over `pg` (the interface of its example adapters: upsert, find,
// findByUid, findByUserCode, consume, destroy, revokeByGrantId). One table, one row per model instance, as the
// community adapters do; expired rows are not found (and would be swept by a job in production).
import pg from "pg"

export const schema = `
CREATE TABLE IF NOT EXISTS oidc_payloads (
  id text NOT NULL,
  type text NOT NULL,
  payload jsonb NOT NULL,
  grant_id text,
  user_code text,
  uid text,
  expires_at timestamptz,
  consumed_at timestamptz,
  PRIMARY KEY (id, type)
);
CREATE INDEX IF NOT EXISTS oidc_payloads_grant_id ON oidc_payloads (grant_id);
CREATE INDEX IF NOT EXISTS oidc_payloads_user_code ON oidc_payloads (user_code);
CREATE INDEX IF NOT EXISTS oidc_payloads_uid ON oidc_payloads (uid);
`

const grantable = new Set(["AccessToken", "AuthorizationCode", "RefreshToken", "DeviceCode", "BackchannelAuthenticationRequest", "PreAuthorizedCode"])

export const postgresAdapter = (connectionString, { max = 10 } = {}) => {
  const db = new pg.Pool({ connectionString, max })
  class PostgresAdapter {
    constructor(name) {
      this.type = name
    }
    async upsert(id, payload, expiresIn) {
      await db.query(
        `INSERT INTO oidc_payloads (id, type, payload, grant_id, user_code, uid, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (id, type) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id,
           user_code = EXCLUDED.user_code, uid = EXCLUDED.uid, expires_at = EXCLUDED.expires_at`,
        [id, this.type, payload, payload.grantId ?? null, payload.userCode ?? null, payload.uid ?? null,
          expiresIn ? new Date(Date.now() + expiresIn * 1000) : null]
      )
    }
    async #findWhere(column, value) {
      const { rows } = await db.query(
        `SELECT payload, consumed_at FROM oidc_payloads
         WHERE ${column} = $1 AND type = $2 AND (expires_at IS NULL OR expires_at > now())`,
        [value, this.type]
      )
      if (rows.length === 0) return undefined
      const [{ payload, consumed_at }] = rows
      return consumed_at === null ? payload : { ...payload, consumed: Math.floor(consumed_at.getTime() / 1000) }
    }
    find(id) { return this.#findWhere("id", id) }
    findByUid(uid) { return this.#findWhere("uid", uid) }
    findByUserCode(userCode) { return this.#findWhere("user_code", userCode) }
    async consume(id) {
      await db.query("UPDATE oidc_payloads SET consumed_at = now() WHERE id = $1 AND type = $2", [id, this.type])
    }
    async destroy(id) {
      await db.query("DELETE FROM oidc_payloads WHERE id = $1 AND type = $2", [id, this.type])
    }
    async revokeByGrantId(grantId) {
      // Called on the Grant model's adapter too; grant members are the grantable models.
      await db.query("DELETE FROM oidc_payloads WHERE grant_id = $1 AND type = ANY($2)", [grantId, [...grantable]])
    }
  }
  return { Adapter: PostgresAdapter, pool: db }
}
