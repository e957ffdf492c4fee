/**
 * `--action` values: one browser action each, written `type:argument` (`click:#more`, `wait:1000`, `write:hello`,
 * `press:Enter`, `scroll:down`, `js:document.title`, `screenshot:full`, `scrape`, `pdf`).
 */
import type { Action } from "@webdata/core"
import { Effect } from "effect"
import { CliFailure } from "../CliFailure.js"

const FORMS =
  "click:<selector>, click-all:<selector>, wait:<ms or selector>, write:<text>, press:<key>, scroll:<up|down|selector>, js:<script>, screenshot[:full], scrape, pdf"

const parse = (spec: string): Action | undefined => {
  const colon = spec.indexOf(":")
  const type = (colon < 0 ? spec : spec.slice(0, colon)).trim().toLowerCase()
  const argument = colon < 0 ? "" : spec.slice(colon + 1)
  const needs = argument.trim() !== ""
  switch (type) {
    case "click":
      return needs ? { type: "click", selector: argument.trim() } : undefined
    case "click-all":
      return needs ? { type: "click", selector: argument.trim(), all: true } : undefined
    case "wait":
      if (!needs) return undefined
      return /^\d+$/.test(argument.trim())
        ? { type: "wait", milliseconds: Number(argument.trim()) }
        : { type: "wait", selector: argument.trim() }
    case "write":
      return colon < 0 ? undefined : { type: "write", text: argument }
    case "press":
      return needs ? { type: "press", key: argument.trim() } : undefined
    case "scroll": {
      const target = argument.trim()
      if (target === "" || target === "down" || target === "up")
        return { type: "scroll", direction: target === "up" ? "up" : "down" }
      return { type: "scroll", selector: target }
    }
    case "js":
    case "executejavascript":
      return needs ? { type: "executeJavascript", script: argument } : undefined
    case "screenshot":
      return argument.trim() === "full" ? { type: "screenshot", fullPage: true } : { type: "screenshot" }
    case "scrape":
      return { type: "scrape" }
    case "pdf":
      return { type: "pdf" }
    default:
      return undefined
  }
}

export const parseActions = (specs: ReadonlyArray<string>): Effect.Effect<Array<Action>, CliFailure> =>
  Effect.forEach(specs, (spec) => {
    const action = parse(spec)
    return action === undefined
      ? Effect.fail(new CliFailure(`Invalid --action "${spec}": expected ${FORMS}`))
      : Effect.succeed(action)
  })
