// The demo workspace of `npm start`: first-start seeding connects the four sandbox platforms
// with data worth looking at, through the server's own composition (appPorts) on the embedded database.
import { Platforms } from "@adgate/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { appPorts } from "../src/appPorts.ts"
import { seedOnFirstStart } from "../src/seed.ts"
import { testConfig } from "./support/testConfig.ts"


describe("the demo workspace", () => {
  it.live("first start connects Google Ads, Meta Ads, GA4 and Shopify (sandbox) with seeded data", () =>
    Effect.gen(function* () {
      const workspace = yield* seedOnFirstStart({ adminEmail: Option.none(), adminPassword: Option.none(), print: () => undefined })
      assert.isTrue(Option.isSome(workspace))
      const id = Option.getOrThrow(workspace).id
      const platforms = yield* Platforms
      const accounts = yield* platforms.accounts(id)
      assert.deepStrictEqual([...new Set(accounts.map((a) => a.platform))], ["ga4", "gads", "meta", "shopify"])
      const tool = platforms.tools.find((t) => t.name === "shopify__products_without_sales")!
      const unsold = yield* platforms.execute({ workspaceId: id, tool, arguments: { accountId: "acme-outdoor.myshopify.com", days: 30 } })
      assert.strictEqual(unsold.providerStatus, 200)
      assert.lengthOf((unsold.body as { products: ReadonlyArray<unknown> }).products, 3)
    }).pipe(Effect.provide(appPorts(testConfig(mkdtempSync(join(tmpdir(), "adgate-demo-")))))), 120_000)
})
