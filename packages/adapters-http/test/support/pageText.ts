// What a person reads of a rendered page: its text without tags (each tag a space), entities decoded, spaces
// collapsed. Page tests match words and before → after figures in it.
export const readable = (page: string): string =>
  page.replace(/<[^>]+>/g, " ").replaceAll("&amp;", "&").replaceAll("&quot;", '"').replaceAll("&#39;", "'")
    .replaceAll("&lt;", "<").replaceAll("&gt;", ">").replace(/\s+/g, " ")
