// The one page type of every paged read of a store (the audit log, the credits ledger, the write-approval history):
// how many entries, in the read's order, come before the page, and how many it holds at most. Pages and stores build
// and apply it only through the functions here, so no read counts its pages another way.

/** A page of a list, in the read's order: the first `offset` entries skipped, then at most `limit`. */
export interface PageQuery {
  readonly offset: number
  readonly limit: number
}

/**
 * Page `number` (1 is the first; anything else reads as 1) of `size` entries a page, asking for one entry more than
 * a page shows: whether another page follows, without a count.
 */
export const numberedPage = (number: number, size: number): PageQuery => ({
  offset: ((Number.isSafeInteger(number) && number >= 1 ? number : 1) - 1) * size,
  limit: size + 1
})

/** `page` as whole numbers of 0 or more, as every store applies it (a fraction or a negative never reaches SQL). */
export const wholePage = (page: PageQuery): PageQuery => ({
  offset: Math.max(0, Math.floor(page.offset)),
  limit: Math.max(0, Math.floor(page.limit))
})

/** The entries of `page` from a list already in the read's order (the in-memory stores). */
export const entriesOfPage = <A>(all: ReadonlyArray<A>, page: PageQuery): ReadonlyArray<A> => {
  const { offset, limit } = wholePage(page)
  return all.slice(offset, offset + limit)
}
