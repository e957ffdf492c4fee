/**
 * The pages the Lambda example's test and benchmark scrape, on 127.0.0.1 (scraping them needs
 * `WEBDATA_ALLOW_PRIVATE_ADDRESSES=1`):
 * - `/article`: a text-dense ~96 KB article, also the server benchmark's page (`bench/server/overhead.mjs`);
 * - `/tiny`: a 50-byte page (the fixed cost of a request);
 * - `/big`: an article of ~300 Ki characters, past the size that the engine builds on its own thread while its
 *   content threads are idle (256 Ki), so that it goes to a content thread (`DocumentWorker.js` of the bundle);
 * - `/doc.pdf`: a one-page PDF, parsed on a parse thread (`ParseWorker.js`);
 * - `/site/`, `/site/1` … `/site/3`: a tiny site to crawl.
 * Any path answers after `?`, so that requests can differ (`/article?3`).
 */
import { createServer } from "node:http"

export const ARTICLE_TITLE = "Benchmark article"
export const BIG_MARKER = "Paragraph 2999 of the long article"
export const PDF_TEXT = "Hello from a PDF parsed in the bundle"
export const TINY_PAGE = "<html><body><p>Hello, tiny page.</p></body></html>"

/** A ~96 KB article: navigation, sidebar, footer and a long article with tables and lists. */
export const articlePage = () => {
  const paragraph = (i) =>
    `<p>Paragraph ${i} of the article explains, in plain words, how the <a href="/glossary/${i}">term ${i}</a> relates to the measurements in the previous section, with enough detail to be useful and a few numbers such as ${i * 17} and ${i * 3.5}.</p>`
  const nav = Array.from({ length: 40 }, (_, i) => `<li><a href="/section/${i}">Section ${i}</a></li>`).join("")
  const rows = Array.from(
    { length: 30 },
    (_, i) => `<tr><td>Row ${i}</td><td>${i * 2}</td><td>${i * 3}</td></tr>`,
  ).join("")
  const body = Array.from({ length: 400 }, (_, i) =>
    i % 40 === 0 ? `<h2>Part ${i / 40 + 1}</h2>${paragraph(i)}` : paragraph(i),
  ).join("\n")
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${ARTICLE_TITLE}</title>
<meta name="description" content="A long article for the overhead benchmark"><script>var x = 1;</script>
<style>body { font-family: sans-serif }</style></head><body>
<header><nav><ul>${nav}</ul></nav></header><div class="layout"><aside class="sidebar"><ul>${nav}</ul></aside>
<main><article><h1>${ARTICLE_TITLE}</h1>${body}<table><thead><tr><th>Name</th><th>A</th><th>B</th></tr></thead><tbody>${rows}</tbody></table></article></main></div>
<footer><p>Footer text © 2026</p></footer></body></html>`
}

const bigPage = () =>
  `<!doctype html><html><head><title>Long article</title></head><body><article><h1>Long article</h1>${Array.from(
    { length: 3000 },
    (_, i) => `<p>Paragraph ${i} of the long article, long enough to need a content thread of its own.</p>`,
  ).join("\n")}</article></body></html>`

/** A one-page PDF with `text` in Helvetica (byte offsets in its cross-reference table computed). */
export const makePdf = (text) => {
  const content = `BT /F1 18 Tf 72 720 Td (${text}) Tj ET`
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ]
  let pdf = "%PDF-1.4\n"
  const offsets = objects.map((object, index) => {
    const offset = pdf.length
    pdf += `${index + 1} 0 obj\n${object}\nendobj\n`
    return offset
  })
  const xref = pdf.length
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`
  pdf += offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`).join("")
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return Buffer.from(pdf, "latin1")
}

const sitePage = (n) =>
  `<!doctype html><html><head><title>Site page ${n}</title></head><body><main><h1>Site page ${n}</h1><p>The text of page ${n} of the crawled site.</p><ul>${[1, 2, 3].map((i) => `<li><a href="/site/${i}">Page ${i}</a></li>`).join("")}</ul></main></body></html>`

/** Serves the pages; `url(path)` is a page's absolute URL. */
export const startSite = async () => {
  const pages = new Map([
    ["/article", { type: "text/html; charset=utf-8", body: Buffer.from(articlePage()) }],
    ["/tiny", { type: "text/html; charset=utf-8", body: Buffer.from(TINY_PAGE) }],
    ["/big", { type: "text/html; charset=utf-8", body: Buffer.from(bigPage()) }],
    ["/doc.pdf", { type: "application/pdf", body: makePdf(PDF_TEXT) }],
    ["/site/", { type: "text/html; charset=utf-8", body: Buffer.from(sitePage(0)) }],
    ...[1, 2, 3].map((n) => [`/site/${n}`, { type: "text/html; charset=utf-8", body: Buffer.from(sitePage(n)) }]),
  ])
  const server = createServer((request, response) => {
    const page = pages.get((request.url ?? "/").split("?")[0])
    if (page === undefined) {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found")
      return
    }
    response.writeHead(200, { "content-type": page.type, "content-length": page.body.length }).end(page.body)
  })
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
  const base = `http://127.0.0.1:${server.address().port}`
  return {
    base,
    url: (path) => `${base}${path}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(resolve)
      }),
  }
}
