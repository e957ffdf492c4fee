/**
 * A small shop for the LLM features' tests, served on 127.0.0.1: a listing at `/shop/` that links three product
 * pages whose data is in JSON-LD, and an article with plain prose. Built on the crawl test site (hits are counted).
 */
import { type CrawlSite, startCrawlSite } from "./crawlSite.js"

export interface Product {
  readonly path: string
  readonly name: string
  readonly price: number
  readonly brand: string
}

export const PRODUCTS: ReadonlyArray<Product> = [
  { path: "/shop/kettle", name: "Copper Kettle", price: 49.5, brand: "Hearth" },
  { path: "/shop/mug", name: "Stoneware Mug", price: 12, brand: "Hearth" },
  { path: "/shop/toaster", name: "Two-Slot Toaster", price: 35.99, brand: "Crumb" },
]

const productPage = (product: Product) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${product.name} | Shop</title>
<script type="application/ld+json">${JSON.stringify({
    "@context": "https://schema.org",
    "@type": "Product",
    name: product.name,
    brand: { "@type": "Brand", name: product.brand },
    offers: { "@type": "Offer", price: String(product.price), priceCurrency: "EUR" },
  })}</script></head>
<body><nav><a href="/shop/">All products</a></nav><main><article><h1>${product.name}</h1>
<p>The ${product.name} by ${product.brand} costs ${product.price} euros. It ships within two days.</p>
<p>Every ${product.name.toLowerCase()} is checked by hand before it leaves the workshop.</p></article></main></body></html>`

const listing = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head>
<body><main><h1>All products</h1><ul>${PRODUCTS.map((product) => `<li><a href="${product.path}">${product.name}</a></li>`).join("")}</ul></main></body></html>`

export const ARTICLE_SENTENCES = [
  "Tidal power turns the rise and fall of the sea into electricity.",
  "Engineers first tested barrages across river mouths in the 1960s.",
  "Modern turbines sit on the seabed and turn slowly in the current.",
  "Because tides follow the moon, their output can be predicted years ahead.",
  "Critics point to the cost of building in salt water and the effect on fish.",
]

const article = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Tidal power</title></head>
<body><main><article><h1>Tidal power</h1>${ARTICLE_SENTENCES.map((sentence) => `<p>${sentence}</p>`).join("")}</article></main></body></html>`

export const startShopSite = (): Promise<CrawlSite> =>
  startCrawlSite({
    pages: {},
    files: {
      "/shop/": ["text/html; charset=utf-8", listing],
      "/article": ["text/html; charset=utf-8", article],
      ...Object.fromEntries(
        PRODUCTS.map((product) => [product.path, ["text/html; charset=utf-8", productPage(product)]]),
      ),
    },
  })
