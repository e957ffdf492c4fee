/**
 * How a schema's property names reach the page's: each concept lists the names people give it (its aliases) and
 * where schema.org keeps it (paths through nested items: a product's price is in `offers.price`). A schema key finds
 * its concepts by its normalised words, then with leading entity words and trailing "name"/"text" dropped
 * ("productName" → "name", "jobTitle" → "title"), then by the longest alias it starts with ("priceUsd" → "price").
 * Its routes are tried in order: the key itself, the concepts' paths, then their aliases as plain names (what
 * labelled text and tables use).
 */
import { normalKey } from "./Candidates.js"

export interface Concept {
  readonly aliases: ReadonlyArray<string>
  /** Paths of normalised property names. */
  readonly paths: ReadonlyArray<ReadonlyArray<string>>
  /** Names, descriptions, URLs and images say little about which item a schema describes. */
  readonly generic: boolean
  /** The value is a URL: resolved against the page, refused when it is not one. */
  readonly url: boolean
  /** A single string holds several values: "a, b, c". */
  readonly split: RegExp | undefined
  /** Names whose value holds this one: an end of a range ("$80,000 – $95,000"), a price's currency ("€12"). */
  readonly within: { readonly read: Reading; readonly names: ReadonlyArray<string> } | undefined
}

/** What is read out of another property's text. */
export type Reading = "min" | "max" | "currency"

interface Options {
  readonly generic?: boolean
  readonly url?: boolean
  readonly split?: RegExp
  readonly within?: { readonly read: Reading; readonly names: string }
}

const words = (names: string): Array<string> =>
  names
    .split("|")
    .map(normalKey)
    .filter((name) => name !== "")

const concept = (aliases: string, paths: string, options: Options = {}): Concept => ({
  aliases: words(aliases),
  paths: paths
    .split(" ")
    .filter((path) => path !== "")
    .map((path) => path.split(".").map(normalKey)),
  generic: options.generic ?? false,
  url: options.url ?? false,
  split: options.split,
  within: options.within === undefined ? undefined : { read: options.within.read, names: words(options.within.names) },
})

const LIST = /\s*[,;\n]\s*/
/** One per line: a list given as text ("Mix…\nBake…"). */
const LINES = /\s*\n\s*/
const PRICE_NAMES = "price|cost|current price|sale price|ticket price|fee|admission"
const SALARY_NAMES = "salary|salary range|pay|pay range|compensation|base salary|wage|estimated salary"

/** In priority order: a key that matches several concepts tries them in this order. */
const CONCEPTS: ReadonlyArray<Concept> = [
  concept(
    "name|title|headline|heading|product name|product title|item name|event name|event title|recipe name|" +
      "recipe title|job title|position|position title|article title|post title|page title",
    "name headline title",
    { generic: true },
  ),
  concept(
    "description|summary|abstract|excerpt|overview|dek|subtitle|subheading|standfirst|teaser|blurb|intro",
    "description abstract",
    { generic: true },
  ),
  concept(
    "url|link|href|permalink|canonical url|page url|product url|web url|website|source url|job url|event url|" +
      "article url",
    "url mainEntityOfPage",
    { generic: true, url: true },
  ),
  concept(
    "image|images|photo|photos|picture|pictures|thumbnail|thumbnail url|image url|image urls|main image|" +
      "cover image|cover|img|featured image|hero image|gallery|product image|product images",
    "image image.url image.contentUrl thumbnailUrl photo",
    { generic: true, url: true },
  ),
  concept(
    "price|cost|amount|current price|sale price|price amount|ticket price|offer price|unit price|price value|fee|" +
      "admission",
    "price offers.price offers.lowPrice offers.priceSpecification.price priceSpecification.price lowPrice",
  ),
  concept("low price|min price|price from|lowest price|price min", "offers.lowPrice lowPrice offers.price price"),
  concept("high price|max price|highest price|price max|price to", "offers.highPrice highPrice"),
  concept(
    "currency|price currency|currency code",
    "priceCurrency offers.priceCurrency offers.priceSpecification.priceCurrency priceSpecification.priceCurrency " +
      "currency baseSalary.currency salaryCurrency estimatedSalary.currency",
    { within: { read: "currency", names: `${PRICE_NAMES}|${SALARY_NAMES}` } },
  ),
  concept(
    "availability|in stock|instock|is in stock|stock|available|is available|stock status|availability status|" +
      "stock availability",
    "offers.availability availability",
  ),
  concept("brand|manufacturer|make|maker|brand name|vendor", "brand manufacturer"),
  concept(
    "sku|product id|productid|item number|item no|item id|article number|product code|stock number",
    "sku productID mpn gtin13 gtin gtin12 gtin14 gtin8",
  ),
  concept("gtin|ean|upc|barcode|isbn|gtin13|gtin12|ean13", "gtin13 gtin gtin12 gtin14 gtin8 isbn"),
  concept("mpn|manufacturer part number|part number|model number|model", "mpn model"),
  concept("condition|item condition", "itemCondition offers.itemCondition"),
  concept("seller|sold by|merchant|retailer|store|shop", "offers.seller seller"),
  concept("color|colour|colors|colours", "color"),
  concept("material|materials|fabric", "material"),
  concept("weight|item weight|net weight|product weight|shipping weight", "weight"),
  concept("dimensions|size|measurements|product dimensions", "size"),
  concept("warranty|guarantee", "warranty"),
  concept("price valid until|sale ends|offer ends", "offers.priceValidUntil priceValidUntil"),
  concept(
    "rating|rating value|average rating|avg rating|stars|star rating|score|aggregate rating|customer rating|" +
      "review score|overall rating|user rating",
    "aggregateRating.ratingValue ratingValue aggregateRating reviewRating.ratingValue",
  ),
  concept(
    "review count|reviews count|number of reviews|num reviews|total reviews|rating count|ratings count|" +
      "number of ratings|ratings|review total|count of reviews|reviews",
    "aggregateRating.reviewCount aggregateRating.ratingCount reviewCount ratingCount",
  ),
  concept("reviews|review|customer reviews|user reviews", "review reviews"),
  concept(
    "author|authors|creator|byline|by|writer|writers|written by|posted by|journalist|author name|reporter|" +
      "contributor",
    "author creator",
  ),
  concept("publisher|site name|publication|site|outlet|newspaper", "publisher sourceOrganization"),
  concept("date|day|when", "datePublished startDate datePosted dateCreated uploadDate"),
  concept(
    "date published|published|publish date|published date|publication date|published at|published on|pub date|" +
      "release date|date created|created|created at|posted at|post date|date",
    "datePublished dateCreated uploadDate datePosted",
  ),
  concept(
    "date modified|modified|updated|updated at|last updated|last modified|modified at|date updated|update date",
    "dateModified",
  ),
  concept("section|article section|news section|department|desk", "articleSection"),
  concept("tags|tag|keywords|keyword|topics|topic|labels|subjects|categories", "keywords articleTag", { split: LIST }),
  concept("category|recipe category|course|meal type|dish type", "recipeCategory category articleSection genre"),
  concept("word count|words", "wordCount"),
  concept("language|lang|in language|locale", "inLanguage"),
  concept("body|article body|content|full text", "articleBody text"),
  concept(
    "start date|start|starts|begins|start time|starts at|start date time|event date|date and time|when|date",
    "startDate",
  ),
  concept("end date|end|ends|end time|ends at|until|finish", "endDate"),
  concept("venue|venue name|place|location name|where|held at", "location.name location"),
  concept("location|where|place|job location|work location|office|venue", "jobLocation location contentLocation"),
  concept("address|full address|venue address|location address", "address location.address jobLocation.address"),
  concept(
    "street|street address|address line|address line 1",
    "address.streetAddress location.address.streetAddress jobLocation.address.streetAddress streetAddress",
  ),
  concept(
    "city|town|locality|address locality",
    "address.addressLocality location.address.addressLocality jobLocation.address.addressLocality " +
      "addressLocality location.addressLocality",
  ),
  concept(
    "region|state|province|county|address region",
    "address.addressRegion location.address.addressRegion jobLocation.address.addressRegion addressRegion",
  ),
  concept(
    "postal code|zip|zip code|postcode|post code",
    "address.postalCode location.address.postalCode jobLocation.address.postalCode postalCode",
  ),
  concept(
    "country|country code|address country|nation",
    "address.addressCountry location.address.addressCountry jobLocation.address.addressCountry addressCountry",
  ),
  concept("organizer|organiser|host|hosted by|organized by|organised by|presented by|promoter", "organizer"),
  concept(
    "performer|performers|artist|artists|lineup|speaker|speakers|band|headliner|presenter",
    "performer performers",
  ),
  concept("status|event status", "eventStatus"),
  concept("attendance mode|event attendance mode", "eventAttendanceMode"),
  concept("ticket url|tickets|ticket link|buy tickets|booking url|registration url", "offers.url", { url: true }),
  concept(
    "ingredients|ingredient|recipe ingredient|recipe ingredients|ingredient list|ingredients list",
    "recipeIngredient ingredients",
    { split: LINES },
  ),
  concept(
    "instructions|instruction|steps|directions|method|recipe instructions|preparation|preparation steps|procedure",
    "recipeInstructions step steps",
    { split: LINES },
  ),
  concept("prep time|preparation time|prep|time to prep", "prepTime"),
  concept("cook time|cooking time|cook|bake time|baking time", "cookTime"),
  concept("total time|time|ready in|total", "totalTime"),
  concept("servings|serves|yield|recipe yield|portions|makes|number of servings|yields", "recipeYield yield"),
  concept(
    "calories|calorie|kcal|energy|calories per serving|calorie count|nutrition calories",
    "nutrition.calories calories",
  ),
  concept("cuisine|recipe cuisine|cuisine type", "recipeCuisine"),
  concept(
    "company|employer|hiring organization|hiring company|organization|company name|employer name|organisation|" +
      "hiring organisation|firm|business",
    "hiringOrganization employer",
  ),
  concept(SALARY_NAMES, "baseSalary estimatedSalary"),
  concept(
    "salary min|min salary|minimum salary|salary from|salary low|salary minimum|pay min|min pay|minimum pay|" +
      "salary lower|salary start",
    "baseSalary.value.minValue baseSalary.minValue estimatedSalary.value.minValue estimatedSalary.minValue " +
      "baseSalary.value.value estimatedSalary.value.value",
    { within: { read: "min", names: SALARY_NAMES } },
  ),
  concept(
    "salary max|max salary|maximum salary|salary to|salary high|salary maximum|pay max|max pay|maximum pay|" +
      "salary upper",
    "baseSalary.value.maxValue baseSalary.maxValue estimatedSalary.value.maxValue estimatedSalary.maxValue " +
      "baseSalary.value.value estimatedSalary.value.value",
    { within: { read: "max", names: SALARY_NAMES } },
  ),
  concept("salary currency|pay currency|currency", "baseSalary.currency salaryCurrency estimatedSalary.currency", {
    within: { read: "currency", names: SALARY_NAMES },
  }),
  concept(
    "salary period|pay period|salary unit|pay frequency|salary interval|unit text",
    "baseSalary.value.unitText baseSalary.unitText estimatedSalary.value.unitText",
  ),
  concept(
    "employment type|job type|type of employment|contract type|employment|schedule|work type|position type",
    "employmentType",
  ),
  concept(
    "date posted|posted|posted on|posted at|posting date|listed|listed on|published|date published|date",
    "datePosted datePublished",
  ),
  concept(
    "valid through|expires|expiry|expiration date|closing date|deadline|apply by|application deadline|" +
      "valid until|closes",
    "validThrough",
  ),
  concept("remote|is remote|remote ok|remote work|work from home|telecommute|fully remote", "jobLocationType"),
  concept("experience|experience requirements|years of experience|required experience", "experienceRequirements"),
  concept("education|education requirements|qualifications", "educationRequirements qualifications"),
  concept("skills|required skills|skill|competencies", "skills", { split: LIST }),
  concept("industry|sector", "industry"),
  concept("benefits|perks|job benefits", "jobBenefits"),
  concept("responsibilities|duties", "responsibilities"),
  concept("phone|telephone|phone number|tel|contact number", "telephone location.telephone"),
  concept("email|e mail|email address|contact email", "email"),
]

const BY_ALIAS = new Map<string, Array<Concept>>()
for (const each of CONCEPTS)
  for (const alias of each.aliases) BY_ALIAS.set(alias, [...(BY_ALIAS.get(alias) ?? []), each])

/** Leading words that name the item rather than the property: "productName", "eventVenue", "jobTitle". */
const ENTITY_WORDS = new Set(["product", "item", "event", "job", "recipe", "article", "post", "page", "listing"])
const TRAILING_WORDS = new Set(["name", "text", "value", "string"])

export interface Route {
  readonly path: ReadonlyArray<string>
  /** The value holds the wanted one (`Concept.within`). */
  readonly read?: Reading
}

export interface KeyMatch {
  readonly key: string
  readonly concepts: ReadonlyArray<Concept>
  readonly routes: ReadonlyArray<Route>
}

const conceptsOf = (key: string): { readonly concepts: Array<Concept>; readonly stripped: string } => {
  const direct = BY_ALIAS.get(key)
  if (direct !== undefined) return { concepts: direct, stripped: key }
  const parts = key.split(" ")
  while (parts.length > 1 && ENTITY_WORDS.has(parts[0]!)) parts.shift()
  while (parts.length > 1 && TRAILING_WORDS.has(parts[parts.length - 1]!)) parts.pop()
  const stripped = parts.join(" ")
  const found = BY_ALIAS.get(stripped)
  if (found !== undefined) return { concepts: found, stripped }
  for (let length = parts.length - 1; length > 0; length--) {
    const prefix = parts.slice(0, length).join(" ")
    const byPrefix = BY_ALIAS.get(prefix)
    if (byPrefix !== undefined) return { concepts: byPrefix, stripped }
  }
  return { concepts: [], stripped }
}

const cache = new Map<string, KeyMatch>()

/** How a schema key is looked up: its concepts and its routes, most specific first. */
export const matchKey = (name: string): KeyMatch => {
  const key = normalKey(name)
  const cached = cache.get(key)
  if (cached !== undefined) return cached
  const { concepts, stripped } = conceptsOf(key)
  const routes: Array<Route> = []
  const seen = new Set<string>()
  const add = (route: Route) => {
    const id = `${route.read ?? ""}:${route.path.join(".")}`
    if (seen.has(id) || route.path.length === 0 || route.path[0] === "") return
    seen.add(id)
    routes.push(route)
  }
  add({ path: [key] })
  add({ path: [stripped] })
  for (const each of concepts) for (const path of each.paths) add({ path })
  for (const each of concepts) for (const alias of each.aliases) add({ path: [alias] })
  for (const each of concepts)
    if (each.within !== undefined) for (const alias of each.within.names) add({ path: [alias], read: each.within.read })
  const match = { key, concepts, routes }
  // Schemas are small and their keys few; the cache stays small unless a caller sends thousands of keys.
  if (cache.size < 10_000) cache.set(key, match)
  return match
}
