import { describe, expect, it } from "vitest"
import { looksClientRendered } from "../../src/Content/ClientRendered.js"

const page = (body: string) => `<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`
const prose = "A paragraph of the page's own text, long enough to read as content rather than a shell. ".repeat(5)

describe("looksClientRendered", () => {
  it("knows the shells of single-page apps", () => {
    expect(looksClientRendered(page(`<div id="root"></div><script src="/app.js"></script>`))).toBe(true)
    expect(looksClientRendered(page(`<div id="__next"> </div>`))).toBe(true)
    expect(looksClientRendered(page("<app-root></app-root>"))).toBe(true)
    // Each marker in any case, wherever it stands in the page.
    expect(looksClientRendered(page(`<header>Menu</header><DIV class="x" ID='svelte'></DIV>`))).toBe(true)
    expect(looksClientRendered(page(`<p>Hi</p><my-app ng-version="17"> </my-app>`))).toBe(true)
    expect(looksClientRendered(page("<NOSCRIPT>This site requires JavaScript.</NOSCRIPT>"))).toBe(true)
    expect(
      looksClientRendered(
        page(`<noscript>You need to enable JavaScript to run this app.</noscript><div id="x"></div>`),
      ),
    ).toBe(true)
  })

  it("leaves pages that have their text, or no shell marker, to plain HTTP", () => {
    expect(looksClientRendered(page(`<div id="root"></div><article><p>${prose}</p></article>`))).toBe(false)
    expect(looksClientRendered(page("<p>Short page.</p>"))).toBe(false)
    expect(looksClientRendered(page(`<div id="app">Loading…</div>`))).toBe(false)
    expect(looksClientRendered(page(`<div id="application"></div><noscript>Images need no script.</noscript>`))).toBe(
      false,
    )
    // Script text does not count as the page's text.
    expect(looksClientRendered(page(`<div id="root"></div><script>${"var x = 1;".repeat(100)}</script>`))).toBe(true)
  })
})
