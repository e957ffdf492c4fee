/**
 * Numbers as pages write them: currency symbols and words around them, thousands separators (`1,234.56`,
 * `1.234,56`, `1 234,56`, `1'234.50`), a `k` suffix (`$80k`), the first of a range (`4–6`) or of a ratio
 * (`4.5 out of 5`). A value that is long prose or a URL is not a number.
 */

/** Longer text is prose, not a value. */
const MAX_CHARS = 200
/** The number must come early: "Price: contact us about any of our 3 options" is not 3. */
const MAX_WORDS_BEFORE = 4

const RUN = /(^|[^\d.,])([-−]?)(\d[\d.,'’\u00a0\u202f ]*)/g

/** A run of digits and separators as a number ("1.234,56" → 1234.56), or undefined. */
const interpret = (raw: string): number | undefined => {
  // Trailing separators and spaces belong to the sentence ("costs 5. Then…").
  let run = raw.replace(/[^\d]+$/, "")
  // Spaces and apostrophes group thousands only before groups of exactly three digits.
  const groups = run.split(/[\u00a0\u202f '’]/)
  let grouped = groups[0]!
  for (const group of groups.slice(1)) {
    if (!/^\d{3}(?:[.,]\d+)?$/.test(group) || /[.,]/.test(grouped)) break
    grouped += group
  }
  run = grouped
  const comma = run.lastIndexOf(",")
  const dot = run.lastIndexOf(".")
  let normal = run
  if (comma >= 0 && dot >= 0) {
    // Both: the later one is the decimal mark, the other groups thousands.
    const [thousands, decimal] = comma > dot ? [".", ","] : [",", "."]
    normal = run.replaceAll(thousands, "").replace(decimal, ".")
  } else if (comma >= 0) {
    const thousands = run.split(",").length > 2 || /^\d{1,3},\d{3}$/.test(run)
    normal = thousands ? run.replaceAll(",", "") : run.replace(",", ".")
  } else if (run.split(".").length > 2)
    // "1.234.567" groups thousands; "1.2.3" is a version, read as far as it is a number.
    normal = /^\d{1,3}(?:\.\d{3})+$/.test(run)
      ? run.replaceAll(".", "")
      : run.slice(0, run.indexOf(".", run.indexOf(".") + 1))
  const value = Number(normal)
  return Number.isFinite(value) && normal !== "" ? value : undefined
}

/** The numbers of a text, in order, at most `limit`. */
export const numbersIn = (text: string, limit: number): Array<number> => {
  const found: Array<number> = []
  if (text.length > MAX_CHARS || /^[a-z][a-z+.-]*:\/\//i.test(text.trim())) return found
  RUN.lastIndex = 0
  for (let match = RUN.exec(text); match !== null && found.length < limit; match = RUN.exec(text)) {
    if (
      found.length === 0 &&
      text
        .slice(0, match.index + match[1]!.length)
        .split(/\s+/)
        .filter(Boolean).length > MAX_WORDS_BEFORE
    )
      break
    const value = interpret(match[3]!.trimEnd())
    if (value === undefined) continue
    const after = text.slice(RUN.lastIndex, RUN.lastIndex + 3)
    const scaled = /^\s?[kK](?![a-zA-Z])/.test(after) ? value * 1000 : value
    // A minus sign only at the start of a value: in "10-20" it is a dash.
    const negative = match[2] !== "" && (match[1] === "" || /\s/.test(match[1]!))
    found.push(negative && found.length === 0 ? -scaled : scaled)
  }
  return found
}

/** The first number of a text; "free" is 0. */
export const parseNumber = (text: string): number | undefined => {
  if (/^\s*free\s*$/i.test(text)) return 0
  return numbersIn(text, 1)[0]
}

/** ISO 4217 codes pages commonly write next to amounts. */
const CODES = new Set(
  (
    "USD EUR GBP JPY CNY CHF CAD AUD NZD SEK NOK DKK PLN CZK HUF INR BRL MXN ZAR SGD HKD KRW TRY RUB ILS AED SAR " +
    "THB IDR MYR PHP"
  ).split(" "),
)
/** Symbols that name one currency (a bare `$`, `¥` or `kr` names several, and gives none). */
const SYMBOLS: ReadonlyArray<readonly [RegExp, string]> = [
  [/US\$/, "USD"],
  [/C(?:A)?\$/, "CAD"],
  [/A(?:U)?\$/, "AUD"],
  [/NZ\$/, "NZD"],
  [/HK\$/, "HKD"],
  [/S\$/, "SGD"],
  [/R\$/, "BRL"],
  [/€/, "EUR"],
  [/£/, "GBP"],
  [/₹/, "INR"],
  [/₩/, "KRW"],
  [/₺/, "TRY"],
  [/₽/, "RUB"],
  [/₪/, "ILS"],
  [/zł/, "PLN"],
]

/** The currency an amount is written in ("€12,50", "49.00 USD"), when the text names one unambiguously. */
export const currencyIn = (text: string): string | undefined => {
  if (text.length > MAX_CHARS || !/\d/.test(text)) return undefined
  for (const match of text.matchAll(/\b[A-Z]{3}\b/g)) if (CODES.has(match[0])) return match[0]
  return SYMBOLS.find(([symbol]) => symbol.test(text))?.[1]
}
