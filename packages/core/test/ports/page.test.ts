// The one page type of the paged reads (ports/Page.ts): a numbered page asks for one entry more than it shows, and
// every store applies a page as whole numbers of 0 or more.
import { assert, describe, it } from "@effect/vitest"
import { entriesOfPage, numberedPage, wholePage } from "@adgate/core"

describe("pages of a paged read", () => {
  it("page n of size s skips (n - 1) × s entries and asks for s + 1 (whether another page follows); anything but a page number reads as the first", () => {
    assert.deepStrictEqual(numberedPage(1, 25), { offset: 0, limit: 26 })
    assert.deepStrictEqual(numberedPage(3, 25), { offset: 50, limit: 26 })
    for (const odd of [0, -2, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) assert.deepStrictEqual(numberedPage(odd, 25), { offset: 0, limit: 26 })
  })

  it("a page is applied as whole numbers of 0 or more, the same in every store", () => {
    assert.deepStrictEqual(wholePage({ offset: -3, limit: 1.5 }), { offset: 0, limit: 1 })
    const all = ["a", "b", "c", "d", "e"]
    assert.deepStrictEqual(entriesOfPage(all, { offset: 2, limit: 2 }), ["c", "d"])
    assert.deepStrictEqual(entriesOfPage(all, { offset: 4, limit: 3 }), ["e"])
    assert.deepStrictEqual(entriesOfPage(all, { offset: -1, limit: -1 }), [])
  })
})
