// A page of a paged read (core PageQuery) as SQL: every paged statement ends with this, so each applies the page the
// same way (whole numbers of 0 or more, core wholePage).
import { type PageQuery, wholePage } from "@adgate/core"
import type { SqlClient } from "effect/sql"

/** `LIMIT … OFFSET …` of `page`. */
export const limitOffset = (sql: SqlClient.SqlClient, page: PageQuery) => {
  const { offset, limit } = wholePage(page)
  return sql`LIMIT ${limit} OFFSET ${offset}`
}
