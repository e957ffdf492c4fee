/**
 * `blockAds`: requests for ads and trackers refused, and ads and cookie banners taken out of the page before it is
 * read, by the EasyList, EasyPrivacy and EasyList Cookie filters that ship in this package (`filters/`; nothing is
 * fetched at run time). The filter engine is `@ghostery/adblocker`, built once per process on first use (~1 s).
 */
import { existsSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { FiltersEngine, Request } from "@ghostery/adblocker"
import type { Page, Request as PageRequest } from "playwright-core"
import { parse } from "tldts"

const LISTS = ["easylist.txt", "easyprivacy.txt", "easylist-cookie.txt"]

let engine: Promise<FiltersEngine> | undefined

/** The lists' folder: the package's `filters/`, or `filters/` next to a bundle of this module (a Lambda function). */
const listsFolder = (): URL => {
  const packaged = new URL("../filters/", import.meta.url)
  return existsSync(packaged) ? packaged : new URL("./filters/", import.meta.url)
}

/** The filter engine over the bundled lists, parsed on first use and shared. */
export const filters = (): Promise<FiltersEngine> => {
  engine ??= Promise.resolve(listsFolder())
    .then((folder) => Promise.all(LISTS.map((name) => readFile(new URL(name, folder), "utf8"))))
    .then((lists) => FiltersEngine.parse(lists.join("\n"), { loadCosmeticFilters: true, loadNetworkFilters: true }))
  return engine
}

/** Playwright's resource types as the filters name them. */
const typeOf = (request: PageRequest): string => {
  const type = request.resourceType()
  if (type === "document") return request.isNavigationRequest() ? "sub_frame" : "document"
  return type === "eventsource" || type === "manifest" || type === "texttrack" ? "other" : type
}

/** Whether the filters refuse this sub-resource of the page at `pageUrl`. */
export const isAd = (filtersEngine: FiltersEngine, request: PageRequest, pageUrl: string): boolean =>
  filtersEngine.match(
    Request.fromRawDetails({ url: request.url(), type: typeOf(request) as "other", sourceUrl: pageUrl }),
  ).match

/** Most ids and classes read from one page: enough for every rule that names one, bounded for a hostile page. */
const MAX_NAMES = 5000

/** Removes the elements the filters hide (ads, cookie banners) from the page, within `budgetMs`. */
export const removeHidden = async (filtersEngine: FiltersEngine, page: Page, budgetMs: number): Promise<void> => {
  const url = page.url()
  const { hostname, domain } = parse(url)
  const names = await page
    .evaluate((max) => {
      const ids = new Set<string>()
      const classes = new Set<string>()
      for (const element of document.querySelectorAll("[id], [class]")) {
        if (element.id) ids.add(element.id)
        for (const name of element.classList) classes.add(name)
        if (ids.size + classes.size > max) break
      }
      return { ids: [...ids], classes: [...classes] }
    }, MAX_NAMES)
    .catch(() => undefined)
  if (names === undefined) return
  const { styles } = filtersEngine.getCosmeticsFilters({
    url,
    hostname: hostname ?? "",
    domain: domain ?? "",
    ids: names.ids,
    classes: names.classes,
    hrefs: [],
    getBaseRules: true,
    getInjectionRules: false,
    getExtendedRules: false,
    getRulesFromDOM: true,
    getRulesFromHostname: true,
  })
  // The rules come as CSS (`a, b { display: none !important; }`): their selectors are what to remove.
  const selectors = styles
    .split("}")
    .flatMap((rule) => rule.split("{")[0]?.split(/,\n/) ?? [])
    .map((selector) => selector.trim())
    .filter((selector) => selector !== "")
  if (selectors.length === 0) return
  await page
    .evaluate(
      ({ selectors, budgetMs }) => {
        const deadline = Date.now() + budgetMs
        for (const selector of selectors) {
          if (Date.now() > deadline) return
          try {
            for (const element of document.querySelectorAll(selector)) element.remove()
          } catch {
            // A selector this browser does not know.
          }
        }
      },
      { selectors, budgetMs },
    )
    .catch(() => undefined)
}
