// A mail's text as markup: escaped, with the links to this service's own pages clickable. Any other address stays
// text: a name someone else chose (an app's self-given name) is quoted in a mail and could carry a link of its own.
import { html, type Html } from "../pages/layout.ts"

export const linkedText = (text: string, origin: string): Html => {
  const parts: Array<Html | string> = []
  let last = 0
  for (const match of text.matchAll(/https?:\/\/[^\s<>"]+/g)) {
    const url = match[0]
    if (!url.startsWith(`${origin}/`)) continue
    parts.push(text.slice(last, match.index), html`<a href="${url}">${url}</a>`)
    last = match.index + url.length
  }
  parts.push(text.slice(last))
  return html`${parts}`
}
