/** Links and images of the whole page, absolute and deduplicated in document order. */
import { absolute, attr, type Element, largestSrcset } from "./Dom.js"

type Found = ReadonlyMap<string, ReadonlyArray<Element>>

/** The elements links and images are read from (besides the metadata's `meta`). */
export const LINK_TAGS = ["a"] as const
export const IMAGE_TAGS = ["img", "source"] as const

/** Every `a[href]`, absolute; `javascript:` and `data:` left out, `mailto:`/`tel:` kept (as Firecrawl does). */
export const extractLinks = (found: Found, base: string): Array<string> => {
  const links = new Set<string>()
  for (const anchor of found.get("a") ?? []) {
    const href = attr(anchor, "href")?.trim()
    if (!href || /^(javascript|data|vbscript):/i.test(href)) continue
    const resolved = absolute(href, base)
    if (resolved !== undefined) links.add(resolved)
  }
  return [...links]
}

/** The source of an image: the largest `srcset` candidate, else `src`, else a lazy-loading attribute. */
export const imageSource = (image: Element): string | undefined => {
  const srcset = attr(image, "srcset") ?? attr(image, "data-srcset")
  return (
    (srcset ? largestSrcset(srcset) : undefined) ??
    attr(image, "src") ??
    attr(image, "data-src") ??
    attr(image, "data-lazy-src") ??
    attr(image, "data-original")
  )
}

/** Images: `img` (largest candidate), `picture > source`, `og:image` and `twitter:image`; no inline `data:` URIs. */
export const extractImages = (found: Found, base: string): Array<string> => {
  const images = new Set<string>()
  const add = (reference: string | undefined) => {
    if (!reference || reference.trim().startsWith("data:")) return
    const resolved = absolute(reference, base)
    if (resolved !== undefined) images.add(resolved)
  }
  for (const image of found.get("img") ?? []) add(imageSource(image))
  for (const source of found.get("source") ?? [])
    if ((source.parent as Element | null)?.name === "picture") add(largestSrcset(attr(source, "srcset") ?? ""))
  for (const meta of found.get("meta") ?? []) {
    const key = (attr(meta, "property") ?? attr(meta, "name") ?? "").toLowerCase()
    if (key === "og:image" || key === "twitter:image") add(attr(meta, "content"))
  }
  return [...images]
}
