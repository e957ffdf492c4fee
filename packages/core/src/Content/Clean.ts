/** Cleanup of the chosen content: URLs absolute, the best `srcset` candidate in `src`, inline images marked. */
import { absolute } from "./Dom.js"
import { imageSource } from "./Links.js"

/** Makes `href`/`src` absolute and moves the largest `srcset` (or lazy `data-src`) candidate into `src`. */
export const absolutizeUrls = (root: ParentNode, base: string): void => {
  for (const anchor of Array.from(root.querySelectorAll("a[href]"))) {
    const href = anchor.getAttribute("href") ?? ""
    if (/^\s*javascript:/i.test(href)) anchor.removeAttribute("href")
    else if (!href.trim().startsWith("#")) {
      const resolved = absolute(href, base)
      if (resolved !== undefined) anchor.setAttribute("href", resolved)
    }
  }
  for (const image of Array.from(root.querySelectorAll("img"))) {
    const candidate = imageSource(image)
    if (candidate === undefined) continue
    const resolved = candidate.startsWith("data:") ? candidate : absolute(candidate, base)
    if (resolved !== undefined) image.setAttribute("src", resolved)
    image.removeAttribute("srcset")
  }
}

/** Firecrawl's placeholder for an inline image in markdown. */
const BASE64_PLACEHOLDER = "<Base64-Image-Removed>"

/** Points inline `data:` images at the placeholder (alt text stays), so markdown is not flooded with base64. */
export const replaceBase64Images = (root: ParentNode): void => {
  for (const image of Array.from(root.querySelectorAll("img"))) {
    if ((image.getAttribute("src") ?? "").startsWith("data:")) image.setAttribute("src", BASE64_PLACEHOLDER)
  }
}
