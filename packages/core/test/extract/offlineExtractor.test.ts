import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { findDate } from "../../src/Extract/Offline/Dates.js"
import { parseNumber } from "../../src/Extract/Offline/Numbers.js"
import { extractOffline } from "../../src/Extract/Offline/OfflineExtractor.js"

const URL = "https://shop.example/p/item"

const PRODUCT_SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string" },
    price: { type: "number" },
    currency: { type: "string" },
    brand: { type: "string" },
    sku: { type: "string" },
    inStock: { type: "boolean" },
    rating: { type: "number" },
    reviewCount: { type: "integer" },
    images: { type: "array", items: { type: "string" } },
  },
}

const page = (head: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`

const jsonLd = (value: unknown) => `<script type="application/ld+json">${JSON.stringify(value)}</script>`

describe("extractOffline: JSON-LD", () => {
  const product = {
    "@context": "https://schema.org",
    "@type": "Product",
    name: "Trail Mug 350 ml",
    image: ["/img/mug-1.jpg", "https://cdn.example/mug-2.jpg"],
    sku: "TM-350",
    brand: { "@type": "Brand", name: "Camplite" },
    offers: { "@type": "Offer", price: "24.50", priceCurrency: "EUR", availability: "https://schema.org/InStock" },
    aggregateRating: { "@type": "AggregateRating", ratingValue: "4.5", reviewCount: "1,024" },
  }

  it("fills a product schema from nested offers, rating and brand, with sources", () => {
    const result = extractOffline(page(jsonLd(product), "<h1>Trail Mug 350 ml</h1>"), URL, PRODUCT_SCHEMA)
    expect(result.value).toEqual({
      name: "Trail Mug 350 ml",
      price: 24.5,
      currency: "EUR",
      brand: "Camplite",
      sku: "TM-350",
      inStock: true,
      rating: 4.5,
      reviewCount: 1024,
      images: ["https://shop.example/img/mug-1.jpg", "https://cdn.example/mug-2.jpg"],
    })
    expect(Object.values(result.sources)).toEqual(Array(9).fill("json-ld"))
  })

  it("reads @graph nodes and resolves @id references", () => {
    const graph = {
      "@context": "https://schema.org",
      "@graph": [
        { "@type": "WebSite", "@id": "#site", name: "Notes" },
        { "@type": "Person", "@id": "#ann", name: "Ann Lee" },
        {
          "@type": "BlogPosting",
          headline: "On rivers",
          author: { "@id": "#ann" },
          datePublished: "2025-03-01T10:00:00Z",
          keywords: "rivers, maps",
        },
      ],
    }
    const result = extractOffline(page(jsonLd(graph), ""), URL, {
      type: "object",
      properties: {
        title: { type: "string" },
        author: { type: "string" },
        published: { type: "string", format: "date" },
        tags: { type: "array", items: { type: "string" } },
      },
    })
    expect(result.value).toEqual({
      title: "On rivers",
      author: "Ann Lee",
      published: "2025-03-01",
      tags: ["rivers", "maps"],
    })
  })

  it("skips a broken block and keeps the others", () => {
    const html = page(`<script type="application/ld+json">{"@type": "Product", "name": </script>${jsonLd(product)}`, "")
    expect(extractOffline(html, URL, PRODUCT_SCHEMA).value.name).toBe("Trail Mug 350 ml")
  })

  it("prefers the item whose type and fields fit the schema over site-wide decoys", () => {
    const html = page(
      jsonLd({ "@type": "Organization", name: "Camplite GmbH", url: "https://camplite.example" }) +
        jsonLd({ "@type": "Product", name: "Related Bottle", offers: { price: 9, priceCurrency: "EUR" } }) +
        jsonLd(product),
      "<h1>Trail Mug 350 ml</h1>",
    )
    const result = extractOffline(html, URL, PRODUCT_SCHEMA)
    expect(result.value.name).toBe("Trail Mug 350 ml")
    expect(result.value.price).toBe(24.5)
  })

  it("fills recipe lists, HowToSteps and durations", () => {
    const recipe = {
      "@type": "Recipe",
      name: "Flatbread",
      recipeYield: ["6", "6 flatbreads"],
      prepTime: "PT1H15M",
      recipeIngredient: ["300 g flour", "1 tsp salt", "180 ml water"],
      recipeInstructions: [
        { "@type": "HowToSection", itemListElement: [{ "@type": "HowToStep", text: "Mix and knead." }] },
        { "@type": "HowToStep", text: "Cook in a dry pan." },
      ],
      nutrition: { "@type": "NutritionInformation", calories: "190 kcal" },
    }
    const result = extractOffline(page(jsonLd(recipe), ""), URL, {
      type: "object",
      properties: {
        name: { type: "string" },
        servings: { type: "integer" },
        prepMinutes: { type: "integer" },
        ingredients: { type: "array", items: { type: "string" } },
        steps: { type: "array", items: { type: "string" } },
        calories: { type: "number" },
      },
    })
    expect(result.value).toEqual({
      name: "Flatbread",
      servings: 6,
      prepMinutes: 75,
      ingredients: ["300 g flour", "1 tsp salt", "180 ml water"],
      steps: ["Mix and knead.", "Cook in a dry pan."],
      calories: 190,
    })
  })

  it("fills a job posting: organization, place, salary range and enum", () => {
    const job = {
      "@type": "JobPosting",
      title: "Data Analyst",
      hiringOrganization: { "@type": "Organization", name: "Okra Labs" },
      jobLocation: { "@type": "Place", address: { addressLocality: "Lyon", addressCountry: "France" } },
      baseSalary: { "@type": "MonetaryAmount", currency: "EUR", value: { minValue: 42000, maxValue: 50000 } },
      employmentType: "FULL_TIME",
      datePosted: "2025-04-02",
    }
    const result = extractOffline(page(jsonLd(job), ""), URL, {
      type: "object",
      properties: {
        job_title: { type: "string" },
        company: { type: "string" },
        location: { type: "string" },
        salary_min: { type: "number" },
        salary_max: { type: "number" },
        salary_currency: { type: "string" },
        employment_type: { type: "string", enum: ["full-time", "part-time"] },
      },
    })
    expect(result.value).toEqual({
      job_title: "Data Analyst",
      company: "Okra Labs",
      location: "Lyon, France",
      salary_min: 42000,
      salary_max: 50000,
      salary_currency: "EUR",
      employment_type: "full-time",
    })
  })
})

describe("extractOffline: microdata and RDFa", () => {
  it("fills a product from microdata with nested scopes, content/href/src values and ignores related items", () => {
    const body = `
      <div itemscope itemtype="https://schema.org/Product">
        <h1 itemprop="name">Desk Lamp Mini</h1>
        <img itemprop="image" src="/img/lamp.jpg">
        <span itemprop="brand" itemscope itemtype="https://schema.org/Brand"><span itemprop="name">Lumo</span></span>
        <span itemprop="sku">DL-MINI</span>
        <div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
          <span itemprop="price" content="39.90">39,90 €</span><meta itemprop="priceCurrency" content="EUR">
          <link itemprop="availability" href="https://schema.org/OutOfStock">
        </div>
        <div itemprop="aggregateRating" itemscope itemtype="https://schema.org/AggregateRating">
          <span itemprop="ratingValue">4.1</span> / 5 (<span itemprop="reviewCount">87</span>)
        </div>
      </div>
      <div class="related-products">
        <div itemscope itemtype="https://schema.org/Product"><span itemprop="name">Floor Lamp</span>
          <div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><span itemprop="price">129</span></div>
        </div>
      </div>`
    const result = extractOffline(page("", body), URL, PRODUCT_SCHEMA)
    expect(result.value).toEqual({
      name: "Desk Lamp Mini",
      price: 39.9,
      currency: "EUR",
      brand: "Lumo",
      sku: "DL-MINI",
      inStock: false,
      rating: 4.1,
      reviewCount: 87,
      images: ["https://shop.example/img/lamp.jpg"],
    })
    expect(result.sources.price).toBe("microdata")
  })

  it("does not take a wrapper whose class mentions a sidebar for an aside when it holds the page's heading", () => {
    const body = `
      <div class="layout with-sidebar">
        <div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">Main Thing</h1>
          <div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><span itemprop="price">10</span></div>
        </div>
        <aside><p>Price: 99</p></aside>
        <div class="sidebar"><p>SKU: WRONG</p></div>
      </div>`
    expect(extractOffline(page("", body), URL, PRODUCT_SCHEMA).value).toEqual({ name: "Main Thing", price: 10 })
  })

  it("fills an event from RDFa Lite", () => {
    const body = `
      <div vocab="https://schema.org/" typeof="Event">
        <h1 property="name">Harbour Run 10K</h1>
        <time property="startDate" datetime="2025-08-17T08:30:00+02:00">17 August, 8:30</time>
        <div property="location" typeof="Place"><span property="name">Old Port</span>
          <div property="address" typeof="PostalAddress"><span property="addressLocality">Marseille</span></div>
        </div>
        <div property="offers" typeof="Offer"><span property="price" content="25">25 €</span>
          <meta property="priceCurrency" content="EUR"></div>
      </div>`
    const result = extractOffline(page("", body), URL, {
      type: "object",
      properties: {
        name: { type: "string" },
        startDate: { type: "string", format: "date-time" },
        venue: { type: "string" },
        city: { type: "string" },
        price: { type: "number" },
        currency: { type: "string" },
      },
    })
    expect(result.value).toEqual({
      name: "Harbour Run 10K",
      startDate: "2025-08-17T08:30:00+02:00",
      venue: "Old Port",
      city: "Marseille",
      price: 25,
      currency: "EUR",
    })
    expect(result.sources.venue).toBe("rdfa")
  })
})

describe("extractOffline: meta tags, tables and labelled text", () => {
  it("fills an article from Open Graph and meta tags only", () => {
    const head = `
      <title>Night trains are back | Rail Weekly</title>
      <meta property="og:site_name" content="Rail Weekly">
      <meta property="og:title" content="Night trains are back | Rail Weekly">
      <meta property="og:description" content="Six new sleeper routes open this winter.">
      <meta property="og:image" content="/img/sleeper.jpg">
      <meta property="article:published_time" content="2025-10-02T06:00:00Z">
      <meta property="article:author" content="https://railweekly.example/staff/ines">
      <meta name="author" content="Inès Moreau">
      <meta property="article:tag" content="rail"><meta property="article:tag" content="travel">`
    const result = extractOffline(page(head, "<p>Text.</p>"), "https://railweekly.example/a/night-trains", {
      type: "object",
      properties: {
        headline: { type: "string" },
        author: { type: "string" },
        datePublished: { type: "string", format: "date" },
        summary: { type: "string" },
        tags: { type: "array", items: { type: "string" } },
        image: { type: "string", format: "uri" },
      },
    })
    expect(result.value).toEqual({
      headline: "Night trains are back",
      author: "Inès Moreau",
      datePublished: "2025-10-02",
      summary: "Six new sleeper routes open this winter.",
      tags: ["rail", "travel"],
      image: "https://railweekly.example/img/sleeper.jpg",
    })
    expect(new Set(Object.values(result.sources))).toEqual(new Set(["meta"]))
  })

  it("fills a spec sheet from a key/value table, a definition list and labelled text", () => {
    const body = `
      <h1>Compact Blender B2</h1>
      <p><strong>Brand:</strong> Whirla</p>
      <p>SKU: WB-2 | Price: €1.299,00</p>
      <table><tr><th>Weight</th><td>2.1 kg</td></tr><tr><th>Power</th><td>900 W</td></tr></table>
      <dl><dt>Colour</dt><dd>Sage</dd><dt>Capacity</dt><dd>1.5 L</dd></dl>
      <aside><p>Price: €19,99</p></aside>`
    const result = extractOffline(page("", body), URL, {
      type: "object",
      properties: {
        name: { type: "string" },
        brand: { type: "string" },
        sku: { type: "string" },
        price: { type: "number" },
        currency: { type: "string" },
        weight: { type: "string" },
        power: { type: "string" },
        color: { type: "string" },
        capacity: { type: "string" },
      },
    })
    expect(result.value).toEqual({
      name: "Compact Blender B2",
      brand: "Whirla",
      sku: "WB-2",
      price: 1299,
      currency: "EUR",
      weight: "2.1 kg",
      power: "900 W",
      color: "Sage",
      capacity: "1.5 L",
    })
    expect(result.sources).toMatchObject({ name: "meta", brand: "text", weight: "table", color: "table" })
  })

  it("reads lists under headings and bylines", () => {
    const body = `
      <h1>Tomato salad</h1><p class="byline">By Jo Park · 2 June 2025</p>
      <h2>Ingredients</h2><ul><li>4 tomatoes</li><li>Salt</li></ul>
      <h2>Method</h2><ol><li>Slice.</li><li>Season.</li></ol>`
    const result = extractOffline(page("", body), URL, {
      type: "object",
      properties: {
        author: { type: "string" },
        ingredients: { type: "array", items: { type: "string" } },
        instructions: { type: "array", items: { type: "string" } },
      },
    })
    expect(result.value).toEqual({
      author: "Jo Park",
      ingredients: ["4 tomatoes", "Salt"],
      instructions: ["Slice.", "Season."],
    })
  })
})

describe("extractOffline: lists of objects", () => {
  it("collects every item of the fitting kind, across subtypes, from an ItemList", () => {
    const list = {
      "@type": "ItemList",
      itemListElement: [
        {
          "@type": "ListItem",
          position: 1,
          item: { "@type": "MusicEvent", name: "Jazz Night", startDate: "2025-06-01" },
        },
        {
          "@type": "ListItem",
          position: 2,
          item: { "@type": "TheaterEvent", name: "Hamlet", startDate: "2025-06-02" },
        },
        { "@type": "ListItem", position: 3, item: { "@type": "Event", name: "Poetry Slam", startDate: "2025-06-03" } },
      ],
    }
    const result = extractOffline(
      page(jsonLd(list) + jsonLd({ "@type": "Organization", name: "Town Hall" }), ""),
      URL,
      {
        type: "object",
        properties: {
          events: {
            type: "array",
            items: {
              type: "object",
              properties: { name: { type: "string" }, date: { type: "string", format: "date" } },
            },
          },
        },
      },
    )
    expect(result.value).toEqual({
      events: [
        { name: "Jazz Night", date: "2025-06-01" },
        { name: "Hamlet", date: "2025-06-02" },
        { name: "Poetry Slam", date: "2025-06-03" },
      ],
    })
    expect(result.sources.events).toBe("json-ld")
  })

  it("fills an item's own list of objects (offers) and nested objects", () => {
    const product = {
      "@type": "Product",
      name: "Kayak",
      offers: [
        { "@type": "Offer", price: 899, priceCurrency: "USD", seller: { "@type": "Organization", name: "PaddleCo" } },
        { "@type": "Offer", price: 949, priceCurrency: "USD", seller: { "@type": "Organization", name: "Riverside" } },
      ],
      brand: { "@type": "Brand", name: "Orca", url: "https://orca.example" },
    }
    const result = extractOffline(page(jsonLd(product), ""), URL, {
      type: "object",
      properties: {
        offers: {
          type: "array",
          items: { type: "object", properties: { seller: { type: "string" }, price: { type: "number" } } },
        },
        brand: { type: "object", properties: { name: { type: "string" }, url: { type: "string" } } },
      },
    })
    expect(result.value).toEqual({
      offers: [
        { seller: "PaddleCo", price: 899 },
        { seller: "Riverside", price: 949 },
      ],
      brand: { name: "Orca", url: "https://orca.example/" },
    })
  })

  it("reads rows of a table with a header row as objects", () => {
    const body = `<table><tr><th>Name</th><th>Price</th></tr>
      <tr><td>Basic</td><td>$5/month</td></tr><tr><td>Pro</td><td>$12/month</td></tr></table>`
    const result = extractOffline(page("", body), URL, {
      type: "object",
      properties: {
        plans: {
          type: "array",
          items: { type: "object", properties: { name: { type: "string" }, price: { type: "number" } } },
        },
      },
    })
    expect(result.value).toEqual({
      plans: [
        { name: "Basic", price: 5 },
        { name: "Pro", price: 12 },
      ],
    })
    expect(result.sources.plans).toBe("table")
  })
})

describe("extractOffline: coercion", () => {
  /** The value a labelled line gives a property named like the label. */
  const one = (schema: Record<string, unknown>, label: string, value: string) =>
    extractOffline(page("", `<p>${label}: ${value}</p>`), URL, { type: "object", properties: { [label]: schema } })
      .value[label]

  it.each([
    ["$1,234.56", 1234.56],
    ["1.234,56 €", 1234.56],
    ["1 234,50 kr", 1234.5],
    ["12,50 €", 12.5],
    ["4.5 out of 5", 4.5],
    ["CHF 1'299.00", 1299],
    ["$80k", 80000],
    ["Free", 0],
    ["-3 °C", -3],
    ["10-20 people", 10],
  ])("number from %s", (text, expected) => {
    expect(parseNumber(text)).toBe(expected)
  })

  it("refuses numbers in prose and URLs", () => {
    expect(parseNumber("Contact us for a quote on our range of more than 3 models of this")).toBeUndefined()
    expect(parseNumber("https://example.com/item/123")).toBeUndefined()
    expect(parseNumber("n/a")).toBeUndefined()
  })

  it.each([
    ["March 5, 2025", "2025-03-05"],
    ["5th March 2025", "2025-03-05"],
    ["Wednesday, 5 March 2025", "2025-03-05"],
    ["05.03.2025", "2025-03-05"],
    ["2025/03/05", "2025-03-05"],
    ["13/03/2025", "2025-03-13"],
    ["2025-03-05T09:00:00+01:00", "2025-03-05"],
  ])("date from %s", (text, expected) => {
    expect(findDate(text)?.date).toBe(expected)
  })

  it("refuses impossible dates", () => {
    expect(findDate("February 30, 2025")).toBeUndefined()
    expect(findDate("2025-13-01")).toBeUndefined()
  })

  it("coerces by the schema's type and format", () => {
    expect(one({ type: "integer" }, "Reviews", "1,024")).toBe(1024)
    expect(one({ type: "integer" }, "Rating", "4.5")).toBeUndefined()
    expect(one({ type: "boolean" }, "Available", "In stock")).toBe(true)
    expect(one({ type: "boolean" }, "Available", "Sold out")).toBe(false)
    expect(one({ type: "boolean" }, "Available", "Ask in store")).toBeUndefined()
    expect(one({ type: "string", format: "date" }, "Date", "March 5, 2025")).toBe("2025-03-05")
    expect(one({ type: "string", format: "date-time" }, "Starts", "June 14, 2025 at 7:30 PM")).toBe(
      "2025-06-14T19:30:00",
    )
    expect(one({ type: "string", format: "date-time" }, "Starts", "June 14, 2025")).toBeUndefined()
    expect(one({ type: "string", format: "duration" }, "Prep time", "1 hr 15 mins")).toBe("PT1H15M")
    expect(one({ type: "string", enum: ["Full-time", "Part-time"] }, "Job type", "PART TIME")).toBe("Part-time")
    expect(one({ type: "string", enum: ["Full-time", "Part-time"] }, "Job type", "Freelance")).toBeUndefined()
    expect(one({ type: ["string", "null"] }, "Brand", "  Acme   Tools ")).toBe("Acme Tools")
    expect(one({ type: "array", items: { type: "string" } }, "Tags", "red, green; blue")).toEqual([
      "red",
      "green",
      "blue",
    ])
    expect(one({ type: "array", items: { type: "number" } }, "Price", "€5")).toEqual([5])
    expect(one({ type: "string" }, "Website", "acme.example/shop")).toBe("https://acme.example/shop")
    expect(one({ type: "string" }, "Website", "/about")).toBe("https://shop.example/about")
    // A word is not a URL: the page's own URL (from the meta reader) is what is left.
    expect(one({ type: "string" }, "Website", "Details")).toBe(URL)
    expect(one({ type: "string", format: "email" }, "Email", "mailto:sales@acme.example")).toBe("sales@acme.example")
  })

  it("never fills a property with a value of the wrong type", () => {
    const html = page(
      jsonLd({
        "@type": "Product",
        name: "Widget",
        sku: "W-1",
        offers: { price: "call for price", priceCurrency: "USD" },
        color: "blue",
        homepage: "not a url",
      }),
      "<p>Weight: heavy</p>",
    )
    const result = extractOffline(html, URL, {
      type: "object",
      properties: {
        name: { type: "integer" },
        price: { type: "number" },
        color: { type: "boolean" },
        homepage: { type: "string", format: "uri" },
        weight: { type: "number" },
        sku: { type: "object", properties: { code: { type: "number" } } },
        brand: { type: "string" },
      },
    })
    expect(result.value).toEqual({})
    expect(result.sources).toEqual({})
  })

  it("accepts a bare map of properties, $ref and anyOf", () => {
    const html = page(jsonLd({ "@type": "Product", name: "Widget", offers: { price: "7.5" } }), "")
    expect(extractOffline(html, URL, { name: { type: "string" } }).value).toEqual({ name: "Widget" })
    const withRef = extractOffline(html, URL, {
      type: "object",
      properties: { price: { $ref: "#/$defs/amount" }, name: { anyOf: [{ type: "null" }, { type: "string" }] } },
      $defs: { amount: { type: "number" } },
    })
    expect(withRef.value).toEqual({ price: 7.5, name: "Widget" })
  })

  it("fills nothing from an empty page or an empty schema", () => {
    expect(extractOffline("", URL, PRODUCT_SCHEMA)).toEqual({ value: {}, sources: {} })
    expect(extractOffline(page("", "<h1>x</h1>"), URL, { type: "object", properties: {} })).toEqual({
      value: {},
      sources: {},
    })
  })
})

describe("Extract/Offline", () => {
  it("does not load Effect (it runs in worker threads that avoid it)", () => {
    const folder = join(import.meta.dirname, "../../src/Extract/Offline")
    const files = readdirSync(folder).filter((file) => file.endsWith(".ts"))
    expect(files.length).toBeGreaterThan(10)
    for (const file of files) {
      const imports = [...readFileSync(join(folder, file), "utf8").matchAll(/from\s+"([^"]+)"/g)].map((m) => m[1]!)
      for (const module of imports)
        expect(module, file).toMatch(/^(?:\.\/|htmlparser2$|domhandler$|domutils$|css-select$)/)
    }
  })
})
