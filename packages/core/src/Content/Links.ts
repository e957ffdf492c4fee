/** Links and images of the whole page, absolute and deduplicated in document order. */
import { absolute, type Doc, largestSrcset } from "./Dom.js"

export const extractLinks = (document: Doc, base: string): Array<string> => {
  const links = new Set<string>()
  for (const anchor of Array.from(document.querySelectorAll("a[href]"))) {
    const href = (anchor.getAttribute("href") ?? "").trim()
    if (href === "" || /^(javascript|data|vbscript):/i.test(href)) continue
    const resolved = absolute(href, base)
    if (resolved !== undefined) links.add(resolved)
  }
  return [...links]
}

export const extractImages = (document: Doc, base: string): Array<string> => {
  const images = new Set<string>()
  const add = (reference: string | null | undefined) => {
    if (!reference || reference.trim().startsWith("data:")) return
    const resolved = absolute(reference, base)
    if (resolved !== undefined) images.add(resolved)
  }
  for (const image of Array.from(document.querySelectorAll("img"))) {
    const srcset = image.getAttribute("srcset") ?? image.getAttribute("data-srcset")
    add((srcset ? largestSrcset(srcset) : undefined) ?? image.getAttribute("src") ?? image.getAttribute("data-src"))
  }
  for (const source of Array.from(document.querySelectorAll("picture source[srcset]")))
    add(largestSrcset(source.getAttribute("srcset") ?? ""))
  for (const meta of Array.from(
    document.querySelectorAll(
      'meta[property="og:image"], meta[name="og:image"], meta[name="twitter:image"], meta[property="twitter:image"]',
    ),
  ))
    add(meta.getAttribute("content"))
  return [...images]
}
