/** The linked fixture site and an API server over it (private targets allowed), for the CLI's job commands. */
import { type SiteWithApi, withApi } from "../../../adapter-express/test/support/apiWithSite.js"
import { type LinkedSite, startLinkedSite } from "./linkedSite.js"

export type SiteAndApi = SiteWithApi<LinkedSite>

export const startSiteAndApi = async (): Promise<SiteAndApi> => withApi(await startLinkedSite())

/** The `==> url <==` lines a crawl or batch prints before each page, sorted. */
export const pageHeaders = (stdout: string): ReadonlyArray<string> =>
  stdout
    .split("\n")
    .filter((line) => line.startsWith("==> "))
    .sort()
