// The Shopify-style sandbox (family `shopify`): a shop, products with status active/draft/archived and inventory,
// sales per product and day (so "products with no sales in 30 days" has answers), theme snippets (code for the
// website), and the Admin REST API's `{ errors: … }` answers (docs/platforms.md §Shopify).
import type { PlatformAnswer } from "@adgate/core"
import { Effect, type Schema } from "effect"
import {
  type SandboxChange,
  answer, dateProperty, isObject, makeTool, noChange, num, pathParts, rawProperties, str, sumBy,
  type SandboxCall, type SandboxPlatform
} from "./SandboxPlatform.ts"
import {
  addDays, isIsoDay, round2, type SandboxObject, type SandboxStore, type SqlEffect, seededRandom, today, weekday, weekdayFactor
} from "./SandboxStore.ts"

const family = "shopify"
const tool = makeTool(family)
const apiVersion = "2024-10"
const accountId = { type: "string", pattern: "^[a-z0-9-]+\\.myshopify\\.com$", description: "Shop domain, e.g. acme-outdoor.myshopify.com (from GET /accounts)." }
const productId = { type: "string", pattern: "^\\d+$", description: "Product id." }

const tools = [
  tool({
    name: "list_products", title: "List products", kind: "read", credits: 1,
    summary: "List the shop's products with status, price and inventory.",
    description: "Answers products with id, title, handle, status (active, draft, archived), price and inventory_quantity.",
    properties: { accountId, status: { type: "string", enum: ["active", "draft", "archived"], description: "Only products with this status." } },
    required: ["accountId"], keywords: ["products", "catalog", "inventory", "stock", "items", "store"]
  }),
  tool({
    name: "sales_report", title: "Sales report", kind: "read", credits: 3,
    summary: "Orders, units sold and revenue between two dates, per product or per day.",
    description: "Sales of the date range (inclusive, shop time zone) grouped by product or by day, with totals.",
    properties: {
      accountId,
      startDate: dateProperty("First day, YYYY-MM-DD."),
      endDate: dateProperty("Last day, YYYY-MM-DD (inclusive)."),
      groupBy: { type: "string", enum: ["product", "day"], default: "product", description: "Rows per product or per day." }
    },
    required: ["accountId", "startDate", "endDate"],
    keywords: ["sales", "orders", "revenue", "units sold", "best sellers", "report", "last week", "store"]
  }),
  tool({
    name: "products_without_sales", title: "Products without sales", kind: "read", credits: 3,
    summary: "Active products that sold nothing in the last N days (not selling, slow movers).",
    description: "Active products with zero units sold in the N days up to yesterday, with their inventory, so stock that does not move can be found.",
    properties: { accountId, days: { type: "integer", minimum: 1, maximum: 365, default: 30, description: "How many days back, up to yesterday." } },
    required: ["accountId"],
    output: {
      type: "object",
      required: ["shop", "startDate", "endDate", "days", "products"],
      properties: {
        shop: { type: "string" }, startDate: { type: "string" }, endDate: { type: "string" }, days: { type: "integer" },
        products: { type: "array", items: { type: "object", required: ["id", "title", "status", "units_sold"],
          properties: { id: { type: "integer" }, title: { type: "string" }, status: { type: "string" }, units_sold: { type: "integer" }, variants: { type: "array" } } } }
      }
    },
    keywords: ["no sales", "not selling", "unsold", "slow moving", "dead stock", "zero sales", "products"]
  }),
  tool({
    name: "update_product_status", title: "Set a product to draft or archived", kind: "write", credits: 3, idempotent: true,
    summary: "Take a product off sale: set its status to draft or archived.",
    description: "Sets the product status to draft or archived (to activate, use shopify__activate_product).",
    properties: { accountId, productId, status: { type: "string", enum: ["draft", "archived"], description: "New status." } },
    required: ["accountId", "productId", "status"], keywords: ["archive", "unpublish", "draft", "hide", "pause", "stop selling", "product"]
  }),
  tool({
    name: "activate_product", title: "Activate a product", kind: "write", credits: 3, idempotent: true, personDecision: true,
    summary: "Put a draft or archived product on sale (status active).",
    description: "Sets the product status to active. An activation always waits for a person's approval.",
    properties: { accountId, productId }, required: ["accountId", "productId"], keywords: ["activate", "publish", "enable", "sell", "product"]
  }),
  tool({
    name: "set_inventory", title: "Set inventory", kind: "write", credits: 3, idempotent: true,
    summary: "Set the available quantity of a product.",
    description: "Sets inventory_quantity. Archived products cannot be restocked.",
    properties: { accountId, productId, quantity: { type: "integer", minimum: 0, maximum: 1_000_000, description: "Units available." } },
    required: ["accountId", "productId", "quantity"], keywords: ["inventory", "stock", "restock", "quantity"]
  }),
  tool({
    name: "delete_product", title: "Delete a product", kind: "write", credits: 5, destructive: true, idempotent: true, personDecision: true,
    summary: "Delete a product for good.",
    description: "Deletes the product and its sales history from the catalog. Always waits for a person's approval.",
    properties: { accountId, productId }, required: ["accountId", "productId"], keywords: ["delete", "remove", "product"]
  }),
  tool({
    name: "list_theme_snippets", title: "List theme snippets", kind: "read", credits: 1,
    summary: "List the code snippets of the shop's live theme.",
    description: "Answers the theme's snippets/*.liquid assets with key and value.",
    properties: { accountId }, required: ["accountId"], keywords: ["theme", "snippets", "code", "website", "liquid", "tracking code"]
  }),
  tool({
    name: "add_theme_snippet", title: "Add a theme snippet", kind: "write", credits: 8, personDecision: true,
    summary: "Add code (a tracking tag, pixel or widget) to the shop's website theme.",
    description: "Creates snippets/{name}.liquid in the live theme. Code for a website always waits for a person's approval. Keys are unique; scripts must load over https.",
    properties: {
      accountId,
      name: { type: "string", pattern: "^[a-z0-9][a-z0-9_-]{0,59}$", description: "Snippet name without extension, e.g. meta-pixel." },
      content: { type: "string", minLength: 1, maxLength: 50_000, description: "The Liquid/HTML code." }
    },
    required: ["accountId", "name", "content"],
    keywords: ["add", "install", "tracking code", "pixel", "tag", "script", "snippet", "website", "site", "theme", "code"]
  }),
  tool({
    name: "raw", title: "Shopify Admin API request", kind: "write", raw: true, credits: 2, destructive: true,
    summary: "Call the Shopify Admin REST API directly (method, path, body).",
    description: `Supported: GET /admin/api/${apiVersion}/products.json, GET|PUT|DELETE /admin/api/${apiVersion}/products/{id}.json (PUT with {product:{status}}), GET|PUT /admin/api/${apiVersion}/themes/{theme_id}/assets.json (PUT with {asset:{key:"snippets/x.liquid", value}}). GET is a read; other methods are writes.`,
    properties: rawProperties(["GET", "PUT", "DELETE"], `/admin/api/${apiVersion}/products.json`), required: ["method", "path"],
    keywords: ["raw", "api", "admin api", "request", "advanced"]
  })
]

const shop = { id: "acme-outdoor.myshopify.com", name: "Acme Outdoor Store", themeId: "142857142857" }
const products: ReadonlyArray<readonly [string, string, string, number, number, number]> = [
  // [title, type, status, price, mean units per day, inventory]
  ["Trailblazer Hiking Boots", "Footwear", "active", 149, 6.5, 240],
  ["Summit 2-Person Tent", "Tents", "active", 329, 1.8, 85],
  ["Ultralight Down Jacket", "Apparel", "active", 219, 3.2, 160],
  ["Merino Wool Hiking Socks (3-pack)", "Apparel", "active", 29, 14, 900],
  ["Trekking Poles Carbon", "Gear", "active", 89, 2.4, 130],
  ["Insulated Water Bottle 1L", "Gear", "active", 34, 9, 600],
  // Three that sell nothing: the answers to "products with no sales in 30 days".
  ["Canvas Camp Chair – Olive", "Furniture", "active", 79, 0, 140],
  ["Vintage Enamel Mug Set", "Kitchen", "active", 39, 0, 210],
  ["Hammock Stand Steel", "Furniture", "active", 189, 0, 35],
  ["Headlamp 400 Lumen", "Gear", "active", 45, 4.1, 300],
  ["Winter Expedition Parka", "Apparel", "draft", 499, 0, 20],
  ["Classic Rain Poncho", "Apparel", "archived", 25, 0, 0]
]

const seed = Effect.fnUntraced(function* (store: SandboxStore) {
  let position = 0
  yield* store.insertAccount({ id: shop.id, name: shop.name, status: "active", currency: "USD", timeZone: "America/Denver" })
  for (const [i, [title, type, status, price, units, inventory]] of products.entries())
    yield* store.insertObject({ id: String(8012345670001 + i), accountId: shop.id, type: "product", parentId: null, name: title, status,
      dailyBudget: null, profile: { units, price }, position: ++position,
      data: { product_type: type, vendor: "Acme Outdoor", handle: title.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, ""), price, inventory_quantity: inventory } })
  yield* store.insertObject({ id: "snippets/reviews-widget.liquid", accountId: shop.id, type: "snippet", parentId: null, name: "reviews-widget",
    status: "active", dailyBudget: null, profile: {}, position: ++position,
    data: { value: "<div id=\"reviews\" data-product=\"{{ product.id }}\"></div>\n<script async src=\"https://widgets.example-reviews.com/v2/reviews.js\"></script>" } })
})

const generate = (workspaceId: string) => (objects: ReadonlyArray<SandboxObject>, day: string) =>
  objects.filter((o) => o.type === "product" && o.status === "active" && (o.profile["units"] ?? 0) > 0).map((o) => {
    const next = seededRandom(workspaceId, o.id, day)
    const units = Math.floor((o.profile["units"] ?? 0) * weekdayFactor[weekday(day)]! * (0.6 + next() * 0.8) + next())
    const orders = units === 0 ? 0 : Math.max(1, Math.round(units * (0.75 + next() * 0.2)))
    const revenue = round2(units * (o.profile["price"] ?? 0))
    return { objectId: o.id, day, impressions: 0, clicks: 0, cost: 0, conversions: 0, conversionValue: 0, sessions: 0, users: 0, orders, units, revenue }
  })

const unauthorized: PlatformAnswer = { providerStatus: 401, body: { errors: "[API] Invalid API key or access token (unrecognized login or wrong password)" } }
const notFound: PlatformAnswer = { providerStatus: 404, body: { errors: "Not Found" } }
const refused = (errors: Record<string, ReadonlyArray<string>>): PlatformAnswer => ({ providerStatus: 422, body: { errors: errors as Schema.Json } })
const insecure = (code: string) => /<script[^>]*\bsrc\s*=\s*["']?http:/i.test(code)

const productJson = (p: SandboxObject) => ({
  id: Number(p.id), title: p.name, handle: String(p.data["handle"] ?? ""), product_type: String(p.data["product_type"] ?? ""),
  vendor: String(p.data["vendor"] ?? ""), status: p.status,
  variants: [{ id: Number(p.id) + 1_000_000, price: Number(p.data["price"] ?? 0).toFixed(2), inventory_quantity: Number(p.data["inventory_quantity"] ?? 0) }]
})

const fromRaw = (call: SandboxCall): SandboxCall | PlatformAnswer => {
  const method = str(call.args, "method").toUpperCase()
  const parts = pathParts(str(call.args, "path"))
  const body = isObject(call.args["body"]) ? call.args["body"] : {}
  if (parts[0] !== "admin" || parts[1] !== "api" || parts[2] !== apiVersion) return notFound
  const as = (tool: string, args: Schema.JsonObject): SandboxCall => ({ ...call, tool, args: { accountId: shop.id, ...args } })
  if (parts.length === 4 && parts[3] === "products.json" && method === "GET") return as("list_products", {})
  if (parts.length === 5 && parts[3] === "products" && parts[4]!.endsWith(".json")) {
    const productId = parts[4]!.slice(0, -5)
    if (method === "GET") return as("get_product", { productId })
    if (method === "DELETE") return as("delete_product", { productId })
    const product = isObject(body["product"]) ? body["product"] : {}
    const status = str(product, "status")
    if (method === "PUT" && status === "active") return as("activate_product", { productId })
    if (method === "PUT" && (status === "draft" || status === "archived")) return as("update_product_status", { productId, status })
    return refused({ status: ["is not included in the list"] })
  }
  if (parts.length === 6 && parts[3] === "themes" && parts[5] === "assets.json") {
    if (parts[4] !== shop.themeId) return notFound
    if (method === "GET") return as("list_theme_snippets", {})
    const asset = isObject(body["asset"]) ? body["asset"] : {}
    const key = str(asset, "key")
    if (method === "PUT" && /^snippets\/.+\.liquid$/.test(key)) return as("add_theme_snippet", { name: key.slice(9, -7), content: str(asset, "value") })
    return refused({ key: ["must be a snippets/*.liquid asset"] })
  }
  return notFound
}

const statusTo = (call: SandboxCall): string | undefined =>
  call.tool === "activate_product" ? "active" : call.tool === "update_product_status" ? str(call.args, "status") : call.tool === "delete_product" ? "deleted" : undefined

const preview: (call: SandboxCall) => SqlEffect<SandboxChange> = Effect.fnUntraced(function* (call: SandboxCall) {
  if (call.tool === "raw") {
    const meant = fromRaw(call)
    return "providerStatus" in meant ? noChange(`${str(call.args, "method")} ${str(call.args, "path")}`) : yield* preview(meant)
  }
  const shopId = str(call.args, "accountId")
  if (call.tool === "add_theme_snippet")
    return { ...noChange(`Add the snippet "${str(call.args, "name")}" to the live theme of ${shopId}`, shopId),
      target: { type: "site_snippet", id: null, name: str(call.args, "name") } }
  const product = yield* call.store.object(shopId, "product", str(call.args, "productId"))
  if (product === undefined) return noChange(`${call.tool} on unknown product ${str(call.args, "productId")}`, shopId)
  const target = { type: "product", id: product.id, name: product.name }
  if (call.tool === "set_inventory")
    return { ...noChange(`Set the inventory of "${product.name}" from ${Number(product.data["inventory_quantity"] ?? 0)} to ${num(call.args, "quantity")}`, shopId), target }
  const to = statusTo(call)
  if (to === undefined) return noChange(call.tool, shopId)
  return { ...noChange(`${to === "deleted" ? "Delete" : "Set"} the product "${product.name}"${to === "deleted" ? "" : ` to ${to}`} (${product.status} → ${to})`, shopId),
    target, status: { from: product.status, to } }
})

const handle: (call: SandboxCall) => SqlEffect<PlatformAnswer> = Effect.fnUntraced(function* (call: SandboxCall) {
  if (call.tool === "raw") {
    const meant = fromRaw(call)
    return "providerStatus" in meant ? meant : yield* handle(meant)
  }
  const shopId = str(call.args, "accountId")
  if ((yield* call.store.account(shopId)) === undefined) return notFound
  const all = yield* call.store.objects(shopId, "product")
  switch (call.tool) {
    case "list_products": {
      const status = str(call.args, "status")
      return answer(200, { products: all.filter((p) => status === "" || p.status === status).map(productJson) })
    }
    case "get_product": {
      const p = all.find((x) => x.id === str(call.args, "productId"))
      return p === undefined ? notFound : answer(200, { product: productJson(p) })
    }
    case "sales_report":
    case "products_without_sales": {
      const yesterday = addDays(yield* today, -1)
      const days = typeof call.args["days"] === "number" ? call.args["days"] : 30
      const startDate = call.tool === "sales_report" ? str(call.args, "startDate") : addDays(yesterday, -(days - 1))
      const endDate = call.tool === "sales_report" ? str(call.args, "endDate") : yesterday
      if (!isIsoDay(startDate) || !isIsoDay(endDate) || startDate > endDate)
        return { providerStatus: 400, body: { errors: { created_at_min: ["must be a date on or before created_at_max"] } } }
      const rows = yield* call.store.metrics(all.map((p) => p.id), startDate, endDate)
      const byDay = str(call.args, "groupBy") === "day"
      const sums = sumBy(rows, (m) => (call.tool === "sales_report" && byDay ? m.day : m.objectId))
      if (call.tool === "products_without_sales") {
        const unsold = all.filter((p) => p.status === "active" && (sums.get(p.id)?.units ?? 0) === 0)
        return answer(200, { shop: shopId, startDate, endDate, days, products: unsold.map((p) => ({ ...productJson(p), units_sold: 0 })) })
      }
      const names = new Map(all.map((p) => [p.id, p.name]))
      const lines = [...sums.entries()].map(([key, t]) => ({
        ...(byDay ? { date: key } : { product_id: Number(key), title: names.get(key) ?? key }),
        orders: t.orders, units_sold: t.units, gross_sales: round2(t.revenue).toFixed(2)
      }))
      const total = [...sums.values()].reduce((a, t) => ({ orders: a.orders + t.orders, units: a.units + t.units, revenue: a.revenue + t.revenue }), { orders: 0, units: 0, revenue: 0 })
      return answer(200, { shop: shopId, currency: "USD", startDate, endDate, rows: lines,
        totals: { orders: total.orders, units_sold: total.units, gross_sales: round2(total.revenue).toFixed(2) } })
    }
    case "list_theme_snippets":
      return answer(200, { assets: (yield* call.store.objects(shopId, "snippet")).map((s) => ({ key: s.id, value: String(s.data["value"] ?? ""), theme_id: Number(shop.themeId) })) })
    case "add_theme_snippet": {
      const key = `snippets/${str(call.args, "name")}.liquid`
      const content = str(call.args, "content")
      if ((yield* call.store.object(shopId, "snippet", key)) !== undefined) return refused({ key: ["has already been taken"] })
      if (insecure(content)) return refused({ value: ["contains a script loaded over http: (use https)"] })
      const position = yield* call.store.nextPosition
      yield* call.store.insertObject({ id: key, accountId: shopId, type: "snippet", parentId: null, name: str(call.args, "name"), status: "active",
        dailyBudget: null, profile: {}, data: { value: content }, position })
      return answer(201, { asset: { key, value: content, theme_id: Number(shop.themeId), content_type: "text/x-liquid" } })
    }
  }
  const product = all.find((p) => p.id === str(call.args, "productId"))
  if (product === undefined) return notFound
  switch (call.tool) {
    case "set_inventory": {
      if (product.status === "archived") return refused({ base: ["Inventory cannot be changed for an archived product"] })
      yield* call.store.updateObject({ ...product, data: { ...product.data, inventory_quantity: num(call.args, "quantity") } })
      return answer(200, { inventory_level: { inventory_item_id: Number(product.id) + 2_000_000, available: num(call.args, "quantity") } })
    }
    case "delete_product":
      yield* call.store.deleteObject(product.id)
      return answer(200, {})
    case "activate_product":
    case "update_product_status": {
      const to = statusTo(call)!
      if (to === "active" && Number(product.data["inventory_quantity"] ?? 0) === 0 && product.status === "archived")
        return refused({ status: ["cannot be active for an archived product without inventory; restock it first"] })
      yield* call.store.updateObject({ ...product, status: to })
      return answer(200, { product: productJson({ ...product, status: to }) })
    }
  }
  return notFound
})

export const shopifyStore: SandboxPlatform = {
  family: { id: family, name: "Shopify (sandbox)", kind: "store" },
  tools,
  seed,
  generate,
  unauthorized,
  preview,
  meaning: (call) => Effect.succeed(fromRaw(call)),
  handle
}
