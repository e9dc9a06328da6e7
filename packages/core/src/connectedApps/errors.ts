// Tagged errors of the Connected apps rows (management page; docs/service.md, Pages).
import { Schema } from "effect"

/** No connection or API key with this id in this workspace (another workspace's is answered the same). */
export class ConnectedAppNotFound extends Schema.TaggedError<ConnectedAppNotFound>()("ConnectedAppNotFound", {}) {}

/** The person may not end this row (`mayEnd`): a viewer, or an editor for a row they did not approve or create. */
export class NotAllowedToEnd extends Schema.TaggedError<NotAllowedToEnd>()("NotAllowedToEnd", {}) {}
