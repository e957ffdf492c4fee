/**
 * One call to an `@effect/ai` `LanguageModel` in one of the ways the engine asks (plain text, or a value in one of the
 * structured modes), returning what the model answered, whatever it is: the engine reads and validates answers
 * itself, so that a wrong one can be shown back to the model. `generateObject` wants an Effect Schema: it gets one
 * that only carries the caller's JSON Schema, and its own decoding of the answer is not relied on.
 */
import type * as AiError from "@effect/ai/AiError"
import type * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import * as Telemetry from "@effect/ai/Telemetry"
import * as Tool from "@effect/ai/Tool"
import type * as Toolkit from "@effect/ai/Toolkit"
import { Effect, Option, Schema } from "effect"
import type { JsonSchema, TokenUsage } from "./Llm.js"
import type { StructuredMode } from "./ModelSpec.js"

/** Response parts, read by their `type` (the tool's parameters are the caller's value, of no static type). */
type Parts = ReadonlyArray<{ readonly type: string }>

export interface Message {
  readonly role: "system" | "user" | "assistant"
  readonly text: string
}

/** The value asked for: its schema and a name (`json_schema.name`, the forced tool's name). */
export interface Target {
  readonly schema: JsonSchema
  readonly name: string
}

export interface Answer {
  /** The answer's text (in `json-schema` mode, the JSON as the provider gave it). */
  readonly text: string
  /** In `tool` mode, the forced tool's input (a string when the model's arguments were not JSON). */
  readonly toolInput: Option.Option<unknown>
  readonly usage: TokenUsage
}

/** A name providers accept for a schema or a tool (`^[a-zA-Z0-9_-]{1,64}$`). */
export const safeName = (name: string | undefined): string => {
  const cleaned = (name ?? "").replace(/[^a-zA-Z0-9_-]+/g, "_").slice(0, 64)
  return cleaned === "" || cleaned === "_" ? "result" : cleaned
}

/**
 * The schema as sent to a provider: no `$schema`/`$id` (some refuse them), and an explicit top-level type, without
 * which Effect's JSON Schema generation would merge the caller's schema into one of its own.
 */
const sentSchema = (schema: JsonSchema): JsonSchema => {
  const { $schema: _schema, $id: _id, ...rest } = schema
  return "type" in rest || "anyOf" in rest || "oneOf" in rest || "$ref" in rest ? rest : { type: "object", ...rest }
}

/** An Effect Schema that accepts anything and whose JSON Schema is the caller's. */
const carrier = (target: Target) =>
  Schema.Unknown.annotations({
    jsonSchema: sentSchema(target.schema),
    description:
      typeof target.schema.description === "string"
        ? target.schema.description
        : "The answer, as a JSON value that matches the schema",
  })

const forcedTool = (target: Target): Toolkit.WithHandler<Record<string, Tool.Any>> => {
  const tool = Tool.make(target.name, {
    description: "Give the answer: call this with the complete value.",
  }).setParameters(carrier(target) as unknown as Tool.AnyStructSchema)
  return {
    tools: { [target.name]: tool },
    // Tool calls are not resolved (`disableToolCallResolution`): the call's input is the answer.
    handle: () => Effect.dieMessage("the answer tool is never run"),
  }
}

const toPrompt = (conversation: ReadonlyArray<Message>): Array<Prompt.MessageEncoded> =>
  conversation.map((message) =>
    message.role === "system"
      ? { role: "system", content: message.text }
      : { role: message.role, content: [{ type: "text", text: message.text }] },
  )

const answerOf = (parts: Parts, target: Target | undefined): Answer => {
  let text = ""
  let toolInput: Option.Option<unknown> = Option.none()
  let usage: TokenUsage = { inputTokens: 0, outputTokens: 0 }
  for (const part of parts) {
    if (part.type === "text") text += (part as Response.TextPart).text
    else if (part.type === "tool-call") {
      const call = part as Response.ToolCallPart<string, unknown>
      if (target !== undefined && call.name === target.name && Option.isNone(toolInput))
        toolInput = Option.some(call.params)
    } else if (part.type === "finish") {
      const { inputTokens, outputTokens } = (part as Response.FinishPart).usage
      usage = { inputTokens: inputTokens ?? 0, outputTokens: outputTokens ?? 0 }
    }
  }
  return { text, toolInput, usage }
}

/**
 * `@effect/ai-openai` fails the whole response when a tool call's arguments are not JSON; that is the model's mistake,
 * to be shown to it like any other, so the arguments are taken from the error.
 */
const unparsableArguments = (error: AiError.AiError): Option.Option<string> => {
  if (error._tag !== "MalformedOutput") return Option.none()
  const match = /tool call parameters[\s\S]*?\nParameters: ([\s\S]*)$/.exec(error.description ?? "")
  return match?.[1] !== undefined ? Option.some(match[1]) : Option.none()
}

/** Asks `model` once: `text` for plain text, or a value in the given structured mode. */
export const callModel = (
  model: LanguageModel.Service,
  mode: StructuredMode | "text",
  conversation: ReadonlyArray<Message>,
  target?: Target,
): Effect.Effect<Answer, AiError.AiError> =>
  Effect.gen(function* () {
    const prompt = toPrompt(conversation)
    // The raw response of the call, seen before `generateObject` decodes it (and fails on an answer that is not
    // JSON, which the engine still wants to read leniently and to show back to the model).
    let seen: Parts | undefined
    const parent = yield* Effect.serviceOption(Telemetry.CurrentSpanTransformer)
    const observe: Telemetry.SpanTransformer = (options) => {
      seen = options.response
      if (Option.isSome(parent)) parent.value(options)
    }
    const request: Effect.Effect<Parts, AiError.AiError> =
      target === undefined || mode === "text" || mode === "prompt"
        ? Effect.map(model.generateText({ prompt }), (response) => response.content)
        : mode === "tool"
          ? Effect.map(
              model.generateText({
                prompt,
                toolkit: forcedTool(target),
                toolChoice: { tool: target.name },
                disableToolCallResolution: true,
              }),
              (response) => response.content,
            )
          : Effect.map(
              model.generateObject({
                prompt,
                schema: carrier(target) as unknown as Schema.Schema<unknown, Record<string, unknown>>,
                objectName: target.name,
              }),
              (response) => response.content,
            )
    return yield* request.pipe(
      Effect.provideService(Telemetry.CurrentSpanTransformer, observe),
      Effect.map((parts) => answerOf(parts, target)),
      Effect.catchAll((error) => {
        if (seen !== undefined) return Effect.succeed(answerOf(seen, target))
        const raw = unparsableArguments(error)
        return Option.isSome(raw)
          ? Effect.succeed<Answer>({ text: "", toolInput: raw, usage: { inputTokens: 0, outputTokens: 0 } })
          : Effect.fail(error)
      }),
    )
  })
