/** Cleanup of the chosen content: URLs absolute, the best `srcset` candidate in `src`, inline images marked. */
import { absolute, attr, type Element, elementsByTag, isTag, isText, remove } from "./Dom.js"
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
export const BASE64_PLACEHOLDER = "<Base64-Image-Removed>"

/** Points inline `data:` images at the placeholder (alt text stays), so markdown is not flooded with base64. */
export const replaceBase64Images = (images: ReadonlyArray<Element>): void => {
  for (const image of images) if ((attr(image, "src") ?? "").startsWith("data:")) image.attribs.src = BASE64_PLACEHOLDER
}

/** Elements that mean something with no text inside: media, embeds, breaks, form fields, table structure. */
const MEANINGFUL_WHEN_EMPTY = new Set(
  "img picture video audio source iframe embed object svg canvas br hr input select textarea table thead tbody tfoot tr td th col colgroup".split(
    " ",
  ),
)

/**
 * Removes the elements that cleanup left without text or anything meaningful (a `<header>` whose navigation was
 * cut), so that the html output does not start with empty wrappers. Nesting is bounded by the prefilter.
 */
export const pruneEmptyElements = (root: Element): void => {
  const keeps = (element: Element): boolean => {
    let kept = MEANINGFUL_WHEN_EMPTY.has(element.name) || (element.name === "a" && attr(element, "href") !== undefined)
    for (const child of [...element.children]) {
      if (isTag(child)) {
        if (keeps(child)) kept = true
        else remove(child)
      } else if (isText(child) && child.data.trim() !== "") kept = true
    }
    return kept
  }
  keeps(root)
}
