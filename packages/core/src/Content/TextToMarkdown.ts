/** Non-HTML text responses as markdown: JSON and other structured text in fenced blocks, plain text untouched. */

const FENCE_LANGUAGES: ReadonlyArray<readonly [RegExp, string]> = [
  [/(^|\/|\+)json\b|ndjson/i, "json"],
  [/(^|\/|\+)xml\b/i, "xml"],
  [/csv/i, "csv"],
  [/javascript|ecmascript/i, "javascript"],
  [/yaml/i, "yaml"],
  [/toml/i, "toml"],
  [/css/i, "css"],
]

/** A fenced code block; the fence is longer than any backtick run inside, so the block stays closed. */
export const fence = (text: string, language: string) => {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (match) => match[0].length))
  const marker = "`".repeat(longest + 1)
  // One line end before the closing fence is the fence's own; blank lines the code ends with are kept.
  return `${marker}${language}\n${text.replace(/\r?\n$/, "")}\n${marker}`
}

export const textToMarkdown = (text: string, contentType: string | undefined): string => {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? ""
  if (type === "" || type === "text/plain" || type === "text/markdown" || type === "text/x-markdown") return text
  const language = FENCE_LANGUAGES.find(([pattern]) => pattern.test(type))?.[1] ?? ""
  if (language === "json") {
    try {
      return fence(JSON.stringify(JSON.parse(text), null, 2), "json")
    } catch {
      return fence(text, "json")
    }
  }
  return fence(text, language)
}
