// The roles a core rule allows, for the 403 page that names them (workspaceFrame's requireRole).
import { Role } from "@adgate/core"

export const rolesWhere = (allowed: (role: Role) => boolean): ReadonlyArray<Role> => Role.literals.filter(allowed)
