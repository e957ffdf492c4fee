/**
 * Getting a value that validates against a JSON Schema out of a model, in the model's structured mode: every answer
 * is read (leniently) and validated; a wrong one is shown back to the model with the list of what is wrong, at most
 * twice, before giving up with `InvalidOutput`. A provider that refuses the native mode (HTTP 400 about
 * `response_format`, JSON Schema or tools) gets the question again in `prompt` mode; when it says the mode is not
 * supported at all, the model stays in `prompt` mode from then on.
 */
import type * as LanguageModel from "@effect/ai/LanguageModel"
import { Effect, Either, Option, Ref } from "effect"
import { LlmError } from "../Errors.js"
import { type CallPolicy, type ProviderFailure, withCallPolicy } from "./CallPolicy.js"
import { parseJsonAnswer } from "./JsonAnswer.js"
import { addUsage, type Generated, NO_USAGE, type TokenUsage } from "./Llm.js"
import { type Answer, callModel, type Message, type Target } from "./ModelCall.js"
import type { StructuredMode } from "./ModelSpec.js"
import { schemaErrors } from "./SchemaValidation.js"

/** Answers a model gets: the first, then two corrections. */
export const MAX_ATTEMPTS = 3

/** How much of a wrong answer is quoted back to the model. */
const MAX_QUOTED_CHARS = 8_000

export interface StructuredModel {
  readonly model: LanguageModel.Service
  /** `provider:model`, for messages. */
  readonly id: string
  readonly policy: CallPolicy
  /** The model's structured mode; set to `prompt` for good when the provider says the native one is unsupported. */
  readonly mode: Ref.Ref<StructuredMode>
  /** A provider failure as the engine reports it. */
  readonly toLlmError: (failure: ProviderFailure) => LlmError
  /**
   * Whether `json-schema` mode also puts the schema in the instructions: OpenAI-compatible servers may ignore a
   * response format they do not support (OpenRouter's routes, older Ollama), and Ollama advises it anyway.
   */
  readonly schemaInInstructions: boolean
}

export interface ValueRequest {
  readonly system: string
  /** The question (instructions and content) as the first user message. */
  readonly user: string
  readonly target: Target
}

const promptModeInstructions = (target: Target): string =>
  "Answer with one JSON value that validates against the JSON Schema below, and with nothing else: no explanation, " +
  `no code fences.\n\nJSON Schema:\n${JSON.stringify(target.schema)}`

/** A 400 that is about the way the value was asked for, not about the question. */
const refusesMode = (failure: ProviderFailure): boolean =>
  failure.reason === "ProviderError" &&
  (failure.status === 400 || failure.status === 422) &&
  /response_format|json_schema|json schema|text\.format|structured|tool|function/i.test(failure.message)

/**
 * …and says the mode is not available at all (rather than that it did not like this one schema, as OpenAI's
 * "Invalid schema for response_format …" does).
 */
const saysUnsupported = (failure: ProviderFailure): boolean =>
  !/invalid schema|schema for/i.test(failure.message) &&
  /not supported|unsupported|does not support|doesn't support|not implemented|not available|unrecognized|unknown (parameter|field|argument)|extra (inputs|fields) (are )?not permitted/i.test(
    failure.message,
  )

type Reading =
  | { readonly _tag: "Value"; readonly value: unknown }
  | { readonly _tag: "Wrong"; readonly errors: ReadonlyArray<string> }

const read = (mode: StructuredMode, answer: Answer, target: Target): Reading => {
  const parse = (text: string): Reading => {
    const parsed = parseJsonAnswer(text)
    return parsed._tag === "Parsed" ? { _tag: "Value", value: parsed.value } : { _tag: "Wrong", errors: [parsed.error] }
  }
  if (mode === "tool") {
    if (Option.isSome(answer.toolInput))
      return typeof answer.toolInput.value === "string"
        ? parse(answer.toolInput.value)
        : { _tag: "Value", value: answer.toolInput.value }
    if (answer.text.trim() === "")
      return { _tag: "Wrong", errors: [`You did not call the tool ${target.name}; call it with the complete value.`] }
  }
  return parse(answer.text)
}

/** The answer as the model gave it, for the conversation that corrects it. */
const quoted = (answer: Answer): string => {
  const text = Option.match(answer.toolInput, {
    onNone: () => answer.text,
    onSome: (input) => (typeof input === "string" ? input : JSON.stringify(input)),
  })
  if (text.trim() === "") return "(empty answer)"
  return text.length > MAX_QUOTED_CHARS ? `${text.slice(0, MAX_QUOTED_CHARS)}…` : text
}

const correction = (mode: StructuredMode, target: Target, errors: ReadonlyArray<string>): string =>
  `Your answer cannot be used:\n${errors.map((error) => `- ${error}`).join("\n")}\n\n` +
  (mode === "tool"
    ? `Call the tool ${target.name} again with the complete, corrected value.`
    : "Answer again with the complete, corrected JSON value, and nothing else.")

/** A value valid against `request.target.schema`, with the tokens of every call it took. */
export const generateValue = (
  model: StructuredModel,
  request: ValueRequest,
): Effect.Effect<Generated<unknown>, LlmError> =>
  Effect.gen(function* () {
    let mode = yield* Ref.get(model.mode)
    let usage: TokenUsage = NO_USAGE
    const history: Array<Message> = [{ role: "user", text: request.user }]
    let errors: ReadonlyArray<string> = []
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; ) {
      const instructed = mode === "prompt" || (mode === "json-schema" && model.schemaInInstructions)
      const system = instructed ? `${request.system}\n\n${promptModeInstructions(request.target)}` : request.system
      const result = yield* Effect.either(
        withCallPolicy(
          callModel(model.model, mode, [{ role: "system", text: system }, ...history], request.target),
          model.policy,
        ),
      )
      if (Either.isLeft(result)) {
        const failure = result.left
        if (mode === "prompt" || !refusesMode(failure)) return yield* Effect.fail(model.toLlmError(failure))
        if (saysUnsupported(failure)) {
          yield* Ref.set(model.mode, "prompt")
          yield* Effect.logWarning(
            `${model.id} does not support the ${mode} structured output mode (${failure.message}); using prompt mode from now on`,
          )
        } else
          yield* Effect.logWarning(
            `${model.id} refused the ${mode} structured output mode (${failure.message}); asking in prompt mode`,
          )
        mode = "prompt"
        continue
      }
      const answer = result.right
      usage = addUsage(usage, answer.usage)
      const reading = read(mode, answer, request.target)
      errors = reading._tag === "Value" ? schemaErrors(request.target.schema, reading.value) : reading.errors
      if (reading._tag === "Value" && errors.length === 0) return { value: reading.value, usage }
      yield* Effect.logDebug(`${model.id} answer ${attempt} of ${MAX_ATTEMPTS} is not valid: ${errors.join("; ")}`)
      history.push(
        { role: "assistant", text: quoted(answer) },
        { role: "user", text: correction(mode, request.target, errors) },
      )
      attempt++
    }
    return yield* Effect.fail(
      new LlmError({
        reason: "InvalidOutput",
        message: `${model.id} gave no valid answer in ${MAX_ATTEMPTS} attempts: ${errors.slice(0, 10).join("; ")}`,
      }),
    )
  })
