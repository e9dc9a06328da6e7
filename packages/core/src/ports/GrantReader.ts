// The reads the token endpoint's grants need, each in one statement on SQL (so that a rotation and an exchange
// cost no more round trips than they must). Read models over ConnectionStore, CodeStore and Directory: the writes
// stay with those stores.
import { Context, Effect, Option } from "effect"
import type { Client, ClientId } from "../clients/Client.ts"
import type { AuthorizationCode } from "../codes/AuthorizationCode.ts"
import type { Connection } from "../connections/Connection.ts"
import type { RoleAnswer } from "../connections/transitionConnection.ts"
import type { StoreUnavailable } from "./errors.ts"
import type { SecretHash } from "./Secrets.ts"

/** What a refresh decides on (spec §States: Connection): the connection and its approver's role now. */
export interface RefreshGrounds {
  readonly connection: Connection
  /** Confirmed (none when no longer a member), or Unconfirmed when the Directory cannot answer now (24-hour grace). */
  readonly role: RoleAnswer
}

/** What an exchange re-reads once committed: whether a reuse or the app's removal raced it (codes/exchangeCode.ts). */
export interface ExchangeRecheck {
  /** The code's version now, null when it is gone. */
  readonly codeVersion: number | null
  /** Whether the client is still there and not removed. */
  readonly clientUsable: boolean
}

/** A refresh's reads together: the client it names (as ClientStore.find answers) and the refresh grounds. */
export interface ClientAndRefreshGrounds {
  readonly client: Option.Option<Client>
  readonly grounds: Option.Option<RefreshGrounds>
}

/** An exchange's reads together: the client it names and the code by hash (as the stores' finds answer them). */
export interface ClientAndCode {
  readonly client: Option.Option<Client>
  readonly code: Option.Option<AuthorizationCode>
}

export interface GrantReaderShape {
  /** The connection any refresh token ever issued to it belongs to (live, spent or withdrawn), with the role. */
  readonly refreshGrounds: (refreshHash: SecretHash) => Effect.Effect<Option.Option<RefreshGrounds>, StoreUnavailable>
  /**
   * The client by id and the refresh grounds by hash, read together (one statement on SQL): a refresh then costs
   * this read and its write. The client is returned as stored, removed or not; the caller decides.
   */
  readonly clientAndRefreshGrounds: (clientId: ClientId, refreshHash: SecretHash) => Effect.Effect<ClientAndRefreshGrounds, StoreUnavailable>
  /** The client by id and the authorization code by hash, read together (one statement on SQL), as stored. */
  readonly clientAndCode: (clientId: ClientId, codeHash: SecretHash) => Effect.Effect<ClientAndCode, StoreUnavailable>
  /**
   * The code's version and the client's usability, read together after an exchange committed: only with a CodeStore
   * without `saveHoldingClient` (codes/exchangeCode.ts).
   */
  readonly recheckExchange: (codeHash: SecretHash, clientId: ClientId) => Effect.Effect<ExchangeRecheck, StoreUnavailable>
}
export class GrantReader extends Context.Service<GrantReader, GrantReaderShape>()("core/ports/GrantReader") {}
