// The workspaces module's public face: the records, adding and finding workspaces, members and plans.
export * from "./Workspace.ts"
export * from "./errors.ts"
export * from "./addWorkspace.ts"
export * from "./findWorkspace.ts"
export * from "./setMemberRole.ts"
export * from "./setWorkspacePlan.ts"
