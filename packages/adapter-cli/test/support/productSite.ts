/**
 * A small shop on 127.0.0.1 for the extract and agent tests: `/product` is a product page with JSON-LD Product data
 * (what the offline extractor reads), `/plain` a page without any, `/slow` never answers (a run that is still going
 * when Ctrl-C comes).
 */
import { createServer } from "node:http"
import { type Listening, listenOnLoopback } from "../../../core/test/support/loopback.js"

export const product = { name: "Acme Anvil", price: 19.99, currency: "USD" } as const

const productPage = () =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${product.name}</title>` +
  `<script type="application/ld+json">${JSON.stringify({
    "@context": "https://schema.org",
    "@type": "Product",
    name: product.name,
    description: "A heavy anvil for cartoon physics.",
    offers: { "@type": "Offer", price: String(product.price), priceCurrency: product.currency },
  })}</script></head><body><main><h1>${product.name}</h1>` +
  `<p>The ${product.name} is a heavy anvil for cartoon physics, forged from one piece of steel.</p>` +
  `<p>Price: $${product.price}</p></main></body></html>`

/** A JSON Schema of the product's name and price. */
export const productSchema = {
  type: "object",
  properties: { name: { type: "string" }, price: { type: "number" } },
  required: ["name", "price"],
} as const

const plainPage =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"></head><body><main>' +
  "<p>Nothing for sale here: only a few notes about the weather, written in plain sentences.</p></main></body></html>"

export interface ProductSite extends Listening {
  /** The paths asked for so far. */
  readonly requested: ReadonlyArray<string>
}

export const startProductSite = async (): Promise<ProductSite> => {
  const requested: Array<string> = []
  const server = createServer((req, res) => {
    requested.push(req.url ?? "/")
    if (req.url === "/slow") return
    const body = req.url === "/product" ? productPage() : req.url === "/plain" ? plainPage : undefined
    if (body === undefined) {
      res.writeHead(404, { "content-type": "text/plain" })
      res.end("not found")
      return
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    res.end(body)
  })
  return { ...(await listenOnLoopback(server)), requested }
}
