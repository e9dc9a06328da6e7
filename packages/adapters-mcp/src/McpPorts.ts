// The core ports the MCP server runs on: those of the bearer check, the tool pipeline, tasks and write requests.
import type { Effect } from "effect"
import type {
  ArgumentValidator, authenticateBearer, callTool, describeTool, Issuer, listTools, startTask, TaskStore, WriteRequestStore
} from "@adgate/core"

export type McpPorts =
  | Effect.Services<ReturnType<typeof authenticateBearer>>
  | Effect.Services<ReturnType<typeof callTool>>
  | Effect.Services<ReturnType<typeof listTools>>
  | Effect.Services<ReturnType<typeof describeTool>>
  | Effect.Services<ReturnType<typeof startTask>>
  | TaskStore | WriteRequestStore | Issuer | ArgumentValidator
