// Sessions need the directory to say who a person is; when it cannot answer, the page cannot either: the same
// "try again in a moment" as a store that is down.
import { StoreUnavailable } from "../ports/errors.ts"
import type { DirectoryUnavailable } from "../ports/Directory.ts"

export const directoryDown = (operation: string) => (e: DirectoryUnavailable) => new StoreUnavailable({ operation, message: e.message })
