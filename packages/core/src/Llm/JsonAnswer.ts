/**
 * Reading a JSON value out of a model's free-text answer (the `prompt` structured mode, and any answer a provider
 * gives as text): reasoning blocks and code fences are stripped, the first JSON object or array is taken, and what
 * does not parse is repaired with `jsonrepair` (single quotes, trailing commas, a truncated end, comments).
 */
import { jsonrepair } from "jsonrepair"

export type JsonAnswer =
  | { readonly _tag: "Parsed"; readonly value: unknown }
  | { readonly _tag: "NotJson"; readonly error: string }

const parsed = (value: unknown): JsonAnswer => ({ _tag: "Parsed", value })

const tryParse = (text: string): { readonly value: unknown } | undefined => {
  try {
    return { value: JSON.parse(text) }
  } catch {
    return undefined
  }
}

const tryRepair = (text: string): { readonly value: unknown } | undefined => {
  try {
    return tryParse(jsonrepair(text))
  } catch {
    return undefined
  }
}

/** Index just past the bracket that closes the one at `start`, or undefined when the text ends first. */
const closingIndex = (text: string, start: number): number | undefined => {
  const stack: Array<string> = []
  let inString = false
  for (let index = start; index < text.length; index++) {
    const char = text[index]
    if (inString) {
      if (char === "\\") index++
      else if (char === '"') inString = false
      continue
    }
    if (char === '"') inString = true
    else if (char === "{") stack.push("}")
    else if (char === "[") stack.push("]")
    else if (char === "}" || char === "]") {
      if (stack.pop() !== char) return undefined
      if (stack.length === 0) return index + 1
    }
  }
  return undefined
}

/** The text inside the first fenced block (closed or not), or the text itself when it has none. */
const unfenced = (text: string): string => {
  const closed = /```[a-zA-Z0-9_-]*[ \t]*\r?\n?([\s\S]*?)```/.exec(text)
  if (closed !== null) return closed[1] ?? ""
  const open = /```[a-zA-Z0-9_-]*[ \t]*\r?\n([\s\S]*)$/.exec(text)
  return open !== null ? (open[1] ?? "") : text
}

/** The JSON value the answer holds, leniently; `NotJson` with a reason the model can act on otherwise. */
export const parseJsonAnswer = (answer: string): JsonAnswer => {
  // Reasoning models served by Ollama or vLLM (DeepSeek-R1, Qwen3) put their thinking in the answer.
  const text = answer.replace(/<think>[\s\S]*?<\/think>/g, "").trim()
  if (text === "") return { _tag: "NotJson", error: "The answer was empty; it must be a JSON value." }
  const whole = tryParse(text)
  if (whole !== undefined) return parsed(whole.value)
  const body = unfenced(text).trim()
  const start = body.search(/[{[]/)
  if (start === -1)
    return { _tag: "NotJson", error: "The answer contains no JSON object or array; it must be only the JSON value." }
  const end = closingIndex(body, start)
  const candidate = end !== undefined ? body.slice(start, end) : body.slice(start)
  const value = tryParse(candidate) ?? tryRepair(candidate)
  if (value !== undefined) return parsed(value.value)
  return {
    _tag: "NotJson",
    error: `The answer is not valid JSON (it begins ${JSON.stringify(candidate.slice(0, 80))}); it must be only the JSON value.`,
  }
}
