/** Cleanup of the chosen content: URLs absolute, the best `srcset` candidate in `src`, inline images marked. */
import { absolute, attr, type Element, elementsByTag } from "./Dom.js"
import { imageSource } from "./Links.js"

const LINKS_AND_IMAGES = new Set(["a", "img"])

/**
 * Makes `href`/`src` absolute and moves the largest `srcset` (or lazy `data-src`) candidate into `src`. Returns the
 * images, for `replaceBase64Images`.
 */
export const absolutizeUrls = (root: Element, base: string): ReadonlyArray<Element> => {
  const found = elementsByTag(root, LINKS_AND_IMAGES)
  for (const anchor of found.get("a") ?? []) {
    const href = attr(anchor, "href")
    if (href === undefined) continue
    if (/^\s*javascript:/i.test(href)) delete anchor.attribs.href
    else if (!href.trim().startsWith("#")) {
      const resolved = absolute(href, base)
      if (resolved !== undefined) anchor.attribs.href = resolved
    }
  }
  const images = found.get("img") ?? []
  for (const image of images) {
    const candidate = imageSource(image)
    if (candidate === undefined) continue
    const resolved = candidate.startsWith("data:") ? candidate : absolute(candidate, base)
    if (resolved !== undefined) image.attribs.src = resolved
    delete image.attribs.srcset
  }
  return images
}

/** Firecrawl's placeholder for an inline image in markdown. */
const BASE64_PLACEHOLDER = "<Base64-Image-Removed>"

/** Points inline `data:` images at the placeholder (alt text stays), so markdown is not flooded with base64. */
export const replaceBase64Images = (images: ReadonlyArray<Element>): void => {
  for (const image of images) if ((attr(image, "src") ?? "").startsWith("data:")) image.attribs.src = BASE64_PLACEHOLDER
}
