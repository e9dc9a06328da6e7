// The consent driver for adgate's own pages, as a person goes through them: the authorization URL sends a signed-out
// person to /signin (email and password, with the form's CSRF token), back to the consent page, where Allow access is
// selected once the page has been on screen its moment (the button's data-enable-after; spec §Authentication 9) with
// the choices the page ticked. Importable on its own (`@adgate/conformance/consent/adgate`): any harness that needs a
// person's Allow on adgate (the MCP conformance suite's code-grant scenario, for one) can use it.
import { Browser, forms, type Page, attribute } from "./browser.ts"
import { type ConsentDriver, isRedirectUri } from "./ConsentDriver.ts"

export interface AdgateConsentOptions {
  /** The person who signs in: a workspace admin on a paid plan (tool scopes need both). */
  readonly email: string
  readonly password: string
  /** The most pages one authorization may take (sign-in, redirects, consent). */
  readonly maxSteps?: number
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The fields a browser would send for `formBody` as shown: hidden inputs, ticked boxes and radios, enabled only. */
const formFields = (formBody: string): URLSearchParams => {
  const fields = new URLSearchParams()
  for (const tag of formBody.match(/<input\b[^>]*>/g) ?? []) {
    const name = attribute(tag, "name")
    if (name === undefined || /\sdisabled\b/.test(tag)) continue
    const type = (attribute(tag, "type") ?? "text").toLowerCase()
    if ((type === "checkbox" || type === "radio") && !/\schecked\b/.test(tag)) continue
    if (type === "submit" || type === "button") continue
    fields.append(name, attribute(tag, "value") ?? (type === "checkbox" ? "on" : ""))
  }
  return fields
}

export const adgateConsent = (options: AdgateConsentOptions): ConsentDriver => {
  const browser = new Browser()
  const maxSteps = options.maxSteps ?? 12
  return {
    name: "adgate",
    approve: async (authorizationUrl, redirectUri) => {
      let page: Page = await browser.request(authorizationUrl)
      let openedAt = Date.now()
      for (let steps = 0; steps < maxSteps; steps++) {
        if (page.status >= 300 && page.status < 400 && page.location !== null) {
          if (isRedirectUri(page.location, redirectUri)) return page.location
          page = await browser.request(page.location)
          openedAt = Date.now()
          continue
        }
        if (page.status !== 200) throw new Error(`adgate consent: ${page.url.pathname} answered ${page.status}: ${page.text.slice(0, 300)}`)
        const all = forms(page.text)
        const signIn = all.find((f) => f.action === "/signin" && /name="password"/.test(f.body))
        if (signIn !== undefined) {
          const fields = formFields(signIn.body)
          fields.set("email", options.email)
          fields.set("password", options.password)
          page = await browser.request(new URL("/signin", page.url), { form: fields })
          // A refused sign-in shows the form again with its alert: 401 for wrong credentials, 429 when throttled.
          if (page.status < 300 || page.status >= 400) throw new Error(`adgate consent: sign-in as ${options.email} refused (${page.status}): ${/role="alert">([^<]*)/.exec(page.text)?.[1] ?? page.text.slice(0, 200)}`)
          continue
        }
        const consent = all.find((f) => f.action === "/oauth/consent" && /name="action" value="allow"/.test(f.body))
        if (consent === undefined) throw new Error(`adgate consent: ${page.url.pathname} has neither the sign-in nor the consent form: ${page.text.slice(0, 300)}`)
        // Allow access works only once the page has been on screen its moment: wait as a person does.
        const button = /<button\b[^>]*value="allow"[^>]*>/.exec(consent.body)?.[0] ?? ""
        const delay = Number(attribute(button, "data-enable-after") ?? "0")
        const wait = openedAt + delay + 100 - Date.now()
        if (wait > 0) await sleep(wait)
        const fields = formFields(consent.body)
        fields.append("action", "allow")
        page = await browser.request(new URL("/oauth/consent", page.url), { form: fields })
        openedAt = Date.now()
      }
      throw new Error(`adgate consent: no redirect to ${redirectUri} after ${maxSteps} pages`)
    }
  }
}

/** The driver from the environment: CONFORMANCE_EMAIL and CONFORMANCE_PASSWORD. */
export const adgateConsentFromEnv = (env: NodeJS.ProcessEnv = process.env): ConsentDriver => {
  const email = env.CONFORMANCE_EMAIL
  const password = env.CONFORMANCE_PASSWORD
  if (email === undefined || email === "" || password === undefined || password === "")
    throw new Error("the adgate consent driver signs in as CONFORMANCE_EMAIL with CONFORMANCE_PASSWORD: set both (a workspace admin on a paid plan)")
  return adgateConsent({ email, password })
}
