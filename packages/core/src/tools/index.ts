// The tools module's public face: the tool catalog, access, routing and the call pipeline.
// Other packages import it through @adgate/core; other core folders import only the files it exports.
export * from "./ToolUsage.ts"
export * from "./Tool.ts"
export * from "./hashToolCall.ts"
export * from "./errors.ts"
export * from "./toolAccess.ts"
export * from "./routeCall.ts"
export * from "./loadAccessGrounds.ts"
export * from "./recordToolRun.ts"
export * from "./callTool.ts"
export * from "./listTools.ts"
export * from "./describeTool.ts"
export * from "./refusalCodes.ts"
