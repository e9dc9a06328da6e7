// The consent driver for node-oidc-provider's development interactions (features.devInteractions): a login form
// (any login name, any password) and a consent form, each posting a hidden `prompt` to its own action. One Browser
// per driver: the first authorization signs in and consents; later ones reuse the session and, for the same client
// and scope, the grant.
import { Browser, forms, type Page } from "./browser.ts"
import { type ConsentDriver, isRedirectUri } from "./ConsentDriver.ts"

export const oidcProviderConsent = (options: { readonly login?: string; readonly maxSteps?: number } = {}): ConsentDriver => {
  const browser = new Browser()
  const login = options.login ?? "conformance-person"
  const maxSteps = options.maxSteps ?? 12
  return {
    name: "oidc-provider",
    approve: async (authorizationUrl, redirectUri) => {
      let page: Page = await browser.request(authorizationUrl)
      for (let steps = 0; steps < maxSteps; steps++) {
        if (page.status >= 300 && page.status < 400 && page.location !== null) {
          if (isRedirectUri(page.location, redirectUri)) return page.location
          page = await browser.request(page.location)
          continue
        }
        if (page.status !== 200) throw new Error(`oidc-provider consent: ${page.url.pathname} answered ${page.status}: ${page.text.slice(0, 300)}`)
        const form = forms(page.text).find((f) => /name="prompt"/.test(f.body))
        if (form?.action === undefined) throw new Error(`oidc-provider consent: ${page.url.pathname} has no interaction form: ${page.text.slice(0, 300)}`)
        const prompt = /name="prompt" value="([^"]+)"/.exec(form.body)?.[1] ?? ""
        const fields = new URLSearchParams({ prompt })
        if (prompt === "login") { fields.set("login", login); fields.set("password", "any") }
        page = await browser.request(new URL(form.action, page.url), { form: fields })
      }
      throw new Error(`oidc-provider consent: no redirect to ${redirectUri} after ${maxSteps} pages`)
    }
  }
}
