// The fields both surfaces render alike (spec §REST API: `statusUrl` is `/api/v1/requests/<request_id>`): the links
// to a write request and a task, relative to the service origin as the spec shows them, and times as ISO 8601 text.
// The REST answers and the MCP tool results take them from here, so a field reads the same on either surface.
import { protectedResources } from "./protectedResources.ts"

/** Where the REST API v1 lives; every link below is under it. */
export const restBasePath = protectedResources.rest.path

/** A write request's status link, `/api/v1/requests/<id>` (GET /requests/{id}). */
export const requestStatusPath = (requestId: string) => `${restBasePath}/requests/${encodeURIComponent(requestId)}`

/** A task's link, `/api/v1/tasks/<id>` (GET /tasks/{taskId}). */
export const taskPath = (taskId: string) => `${restBasePath}/tasks/${encodeURIComponent(taskId)}`

/** A time of a record (epoch milliseconds) as the answers show it: ISO 8601 in UTC, `2026-11-27T20:00:00.000Z`. */
export const isoTime = (ms: number): string => new Date(ms).toISOString()

/** The same, for a time that may not be there yet (a decision, an end). */
export const isoTimeOrNull = (ms: number | null): string | null => ms === null ? null : isoTime(ms)

/**
 * Whether a request target's path carries matrix parameters (`/api/v1/me;x`, `/tools/name;evil`): the router ignores
 * everything after a `;`, so such a path would reach a route whose parameter is not what the client sent. Both
 * surfaces answer it 404, as a path that does not exist.
 */
export const hasMatrixParameters = (target: string): boolean => (target.split(/[?#]/, 1)[0] ?? "").includes(";")
