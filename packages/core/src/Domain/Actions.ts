/** Browser actions (wait, click, write, ...) run before the content is taken; they need the browser engine. */
import { Schema } from "effect"

const PaperFormat = Schema.Literal("A0", "A1", "A2", "A3", "A4", "A5", "A6", "Letter", "Legal", "Tabloid", "Ledger")

export const WaitAction = Schema.Struct({
  type: Schema.Literal("wait"),
  milliseconds: Schema.optional(Schema.Int.pipe(Schema.positive())),
  selector: Schema.optional(Schema.String),
}).pipe(
  Schema.filter((action) =>
    (action.milliseconds === undefined) !== (action.selector === undefined)
      ? true
      : "Either 'milliseconds' or 'selector' must be provided, but not both.",
  ),
)

export const Action = Schema.Union(
  WaitAction,
  Schema.Struct({ type: Schema.Literal("click"), selector: Schema.String, all: Schema.optional(Schema.Boolean) }),
  Schema.Struct({
    type: Schema.Literal("screenshot"),
    fullPage: Schema.optional(Schema.Boolean),
    quality: Schema.optional(Schema.Int.pipe(Schema.between(1, 100))),
    viewport: Schema.optional(Schema.Struct({ width: Schema.Int, height: Schema.Int })),
  }),
  Schema.Struct({ type: Schema.Literal("write"), text: Schema.String }),
  Schema.Struct({ type: Schema.Literal("press"), key: Schema.String }),
  Schema.Struct({
    type: Schema.Literal("scroll"),
    direction: Schema.optional(Schema.Literal("up", "down")),
    selector: Schema.optional(Schema.String),
  }),
  Schema.Struct({ type: Schema.Literal("scrape") }),
  Schema.Struct({ type: Schema.Literal("executeJavascript"), script: Schema.String }),
  Schema.Struct({
    type: Schema.Literal("pdf"),
    landscape: Schema.optional(Schema.Boolean),
    scale: Schema.optional(Schema.Number),
    format: Schema.optional(PaperFormat),
  }),
).annotations({ identifier: "Action" })
export type Action = typeof Action.Type

export const Actions = Schema.Array(Action).pipe(
  Schema.filter((actions) => actions.length <= 50 || "Number of actions cannot exceed 50"),
)

/** Milliseconds the actions wait in total (a selector wait counts one second, as Firecrawl counts it). */
export const actionsWaitMs = (actions: ReadonlyArray<Action>): number =>
  actions.reduce(
    (total, action) => (action.type === "wait" ? total + (action.milliseconds ?? (action.selector ? 1000 : 0)) : total),
    0,
  )
