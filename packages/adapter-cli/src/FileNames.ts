/**
 * File names for pages written to a directory (`-o dir`): readable, derived from the URL path, one flat level (so no
 * name can climb out of the directory), unique within a run even on case-insensitive file systems.
 */

const MAX_STEM = 120
const PAGE_EXTENSION = /\.(html?|php|aspx?|jsp)$/i

/** Characters outside a conservative portable set become `-`; dots cannot start a name (no `..`, no hidden files). */
const clean = (text: string): string =>
  text
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^[.-]+|[.-]+$/g, "")

const decode = (segment: string): string => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/** `http://site/docs/intro.html?v=2` → `docs_intro_v-2`; the start host's root → `index`; other hosts prefix theirs. */
export const stemOf = (url: string, startHost: string): string => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return clean(url).slice(0, MAX_STEM) || "page"
  }
  const segments = parsed.pathname
    .split("/")
    .map(decode)
    .map(clean)
    .filter((segment) => segment !== "")
  const last = segments.length - 1
  if (last >= 0) segments[last] = clean(segments[last]!.replace(PAGE_EXTENSION, ""))
  const parts = [
    ...(parsed.host !== startHost ? [clean(parsed.host)] : []),
    ...segments.filter((segment) => segment !== ""),
    ...(parsed.search.length > 1 ? [clean(decode(parsed.search.slice(1)))] : []),
  ].filter((part) => part !== "")
  const stem = (parts.length > 0 ? parts.join("_") : "index").slice(0, MAX_STEM)
  return clean(stem) || "index"
}

/** Hands out unique names: the second `index.md` of a run is `index-2.md`, and so on. */
export const makeNamer = (startUrl: string) => {
  let startHost = ""
  try {
    // Like the engine, a URL without a scheme is taken as http.
    startHost = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(startUrl) ? startUrl : `http://${startUrl}`).host
  } catch {}
  const taken = new Set<string>()
  return (url: string, extension: string): string => {
    const stem = stemOf(url, startHost)
    for (let n = 1; ; n++) {
      const name = `${n === 1 ? stem : `${stem}-${n}`}.${extension}`
      if (!taken.has(name.toLowerCase())) {
        taken.add(name.toLowerCase())
        return name
      }
    }
  }
}
