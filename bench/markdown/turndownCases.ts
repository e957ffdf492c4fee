/**
 * The test cases of turndown (https://github.com/mixmark-io/turndown) and of its GFM plugin
 * (https://github.com/mixmark-io/turndown-plugin-gfm), read at run time from `test/index.html` in a git directory
 * (a clone or a bare mirror); nothing of them is copied into this repository. Each case reads:
 *
 *     <div class="case" data-name="…" data-options='{…}'>
 *       <div class="input">HTML</div>
 *       <pre class="expected">markdown, HTML-escaped</pre>
 *     </div>
 *
 * turndown's runner (turndown-attendant) converts the input element's content with `new TurndownService(options)`
 * and compares the result with the expected element's text content.
 */
import { execFileSync } from "node:child_process"
import type { Element } from "domhandler"
import { findAll, findOne, textContent } from "domutils"
import { parseDocument } from "htmlparser2"

export interface TurndownCase {
  readonly name: string
  /** turndown's options for the case (`data-options`), `{}` when none. */
  readonly options: Record<string, unknown>
  /** The input element's content, exactly as written in the file. */
  readonly input: string
  /** The expected markdown, entities decoded. */
  readonly expected: string
}

const hasClass = (element: Element, name: string) => (element.attribs.class ?? "").split(/\s+/).includes(name)

/** The cases of `test/index.html` at HEAD of the git directory `repo`. */
export const loadCases = (repo: string): Array<TurndownCase> => {
  const html = execFileSync("git", [`--git-dir=${repo}`, "show", "HEAD:test/index.html"], {
    maxBuffer: 64 * 1024 * 1024,
  }).toString("utf8")
  const document = parseDocument(html, { withStartIndices: true, withEndIndices: true })
  return findAll((element) => element.name === "div" && hasClass(element, "case"), document.children).map((element) => {
    const name = element.attribs["data-name"] ?? "(unnamed)"
    const input = findOne((child) => hasClass(child, "input"), element.children)
    const expected = findOne((child) => hasClass(child, "expected"), element.children)
    if (input === null || expected === null) throw new Error(`turndown case "${name}" lacks its input or expected`)
    // The input element as written in the file, less its own tags (the last child's end index would include an
    // end tag that closed it implicitly, e.g. a `</div>` after an unclosed `<ul>`).
    const outer =
      input.startIndex != null && input.endIndex != null ? html.slice(input.startIndex, input.endIndex + 1) : ""
    const source = outer.slice(outer.indexOf(">") + 1).replace(/<\/div\s*>$/i, "")
    const options = element.attribs["data-options"]
    return {
      name,
      options: options === undefined ? {} : (JSON.parse(options) as Record<string, unknown>),
      input: source,
      expected: textContent(expected),
    }
  })
}
