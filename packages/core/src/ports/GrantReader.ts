// The reads the token endpoint's grants need, each in one statement on SQL (issue 11: a rotation and an exchange
// cost no more round trips than they must). Read models over ConnectionStore, CodeStore and Directory: the writes
// stay with those stores.
import { Context, Effect, Option } from "effect"
import type { ConnectionMailRecipients } from "../audit/mailAdminsOfConnection.ts"
import type { AuthorizationCode } from "../codes/AuthorizationCode.ts"
import type { Connection } from "../connections/Connection.ts"
import type { RoleAnswer } from "../connections/transitionConnection.ts"
import type { DirectoryUnavailable } from "./Directory.ts"
import type { StoreUnavailable } from "./errors.ts"

/** What a refresh decides on (spec §States: Connection): the connection and its approver's role now. */
export interface RefreshGrounds {
  readonly connection: Connection
  /** Confirmed (none when no longer a member), or Unconfirmed when the Directory cannot answer now (24-hour grace). */
  readonly role: RoleAnswer
}

/** What an exchange decides on and opens the connection with: the code and who is told of the new connection. */
export interface ExchangeGrounds {
  readonly code: AuthorizationCode
  /** The workspace's admins, the approver and the workspace's name, as connectionMailRecipients reads them. */
  readonly recipients: ConnectionMailRecipients
}

export interface GrantReaderShape {
  /** The connection any refresh token ever issued to it belongs to (live, spent or withdrawn), with the role. */
  readonly refreshGrounds: (refreshHash: string) => Effect.Effect<Option.Option<RefreshGrounds>, StoreUnavailable>
  /** The code by its hash with the mail's recipients; DirectoryUnavailable when they cannot be read now. */
  readonly exchangeGrounds: (codeHash: string) => Effect.Effect<Option.Option<ExchangeGrounds>, StoreUnavailable | DirectoryUnavailable>
}
export class GrantReader extends Context.Service<GrantReader, GrantReaderShape>()("core/ports/GrantReader") {}
