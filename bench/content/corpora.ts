/**
 * Public main-content corpora, read straight from git directories (clones or bare mirrors) so that nothing of them is
 * copied into this repository:
 *
 * - `article`: the Zyte/Scrapinghub article-extraction benchmark (https://github.com/scrapinghub/article-extraction-benchmark),
 *   181 news and blog pages with a hand-written gold article body (`ground-truth.json`). Point ARTICLE_BENCHMARK_REPO
 *   at its git directory (a clone, or a bare mirror).
 * - `readability`: Mozilla Readability's test pages (https://github.com/mozilla/readability, test/test-pages), 130 pages
 *   whose gold is Readability's own expected output, so it flatters Readability. Point READABILITY_REPO at its git
 *   directory.
 */
import { execFileSync } from "node:child_process"
import { gunzipSync } from "node:zlib"
import { parseHTML } from "linkedom"

export interface Page {
  readonly name: string
  readonly url: string
  readonly source: string
  /** The gold main text, plain. */
  readonly gold: string
}

export interface Corpus {
  readonly name: string
  readonly pages: ReadonlyArray<Page>
}

const git = (repo: string, ...args: Array<string>): Buffer =>
  execFileSync("git", [`--git-dir=${repo}`, ...args], { maxBuffer: 256 * 1024 * 1024 })

const list = (repo: string, tree: string) =>
  git(repo, "ls-tree", "--name-only", `HEAD:${tree}`)
    .toString("utf8")
    .split("\n")
    .filter((name) => name !== "")

const textOf = (html: string) => parseHTML(`<html><body>${html}</body></html>`).document.body?.textContent ?? ""

const articleBenchmark = (repo: string): Corpus => {
  const truth = JSON.parse(git(repo, "show", "HEAD:ground-truth.json").toString("utf8")) as Record<
    string,
    { articleBody?: string; url?: string }
  >
  const pages = Object.entries(truth).map(([id, entry]) => ({
    name: id.slice(0, 12),
    url: entry.url ?? "https://example.com/",
    source: gunzipSync(git(repo, "show", `HEAD:html/${id}.html.gz`)).toString("utf8"),
    gold: entry.articleBody ?? "",
  }))
  return { name: "article", pages }
}

const readabilityPages = (repo: string): Corpus => ({
  name: "readability",
  pages: list(repo, "test/test-pages").map((name) => ({
    name,
    url: "http://fakehost/test/page.html",
    source: git(repo, "show", `HEAD:test/test-pages/${name}/source.html`).toString("utf8"),
    gold: textOf(git(repo, "show", `HEAD:test/test-pages/${name}/expected.html`).toString("utf8")),
  })),
})

/** The git directory named by an environment variable; the corpora are not part of this repository. */
const repoFrom = (variable: string, source: string): string => {
  const repo = process.env[variable]
  if (repo === undefined || repo === "")
    throw new Error(`Set ${variable} to the git directory of a clone of ${source} (the corpus is read from it)`)
  return repo
}

const LOADERS: Record<string, () => Corpus> = {
  article: () =>
    articleBenchmark(repoFrom("ARTICLE_BENCHMARK_REPO", "https://github.com/scrapinghub/article-extraction-benchmark")),
  readability: () => readabilityPages(repoFrom("READABILITY_REPO", "https://github.com/mozilla/readability")),
}

/** The corpora named in `names` (comma-separated), in that order. */
export const loadCorpora = (names: string): Array<Corpus> =>
  names
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "")
    .map((name) => {
      const load = LOADERS[name]
      if (load === undefined) throw new Error(`Unknown corpus "${name}" (known: ${Object.keys(LOADERS).join(", ")})`)
      return load()
    })
