/**
 * A `LanguageModel` over the OpenAI Chat Completions API (`POST {base}/chat/completions`), which Ollama, vLLM,
 * LM Studio, llama.cpp's server and OpenRouter all speak: text, `response_format: json_schema` (not strict, so that
 * any caller's schema is accepted) and function tools with `tool_choice`. Never streams.
 */
import * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import * as Tool from "@effect/ai/Tool"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { Effect, Layer, Schema, Stream } from "effect"
import { failOnErrorStatus } from "./HttpErrors.js"

export interface ChatCompletionsOptions {
  readonly model: string
  /** Up to the version, without `/chat/completions`: `http://127.0.0.1:11434/v1`. */
  readonly baseUrl: string
  /** Sent as `Authorization: Bearer`; local servers do without. */
  readonly apiKey?: string | undefined
}

const MODULE = "ChatCompletions"

type ChatMessage = Record<string, unknown>

const textOf = (parts: ReadonlyArray<{ readonly type: string }>): string =>
  parts.flatMap((part) => (part.type === "text" ? [(part as Prompt.TextPart).text] : [])).join("\n")

const unsupported = (description: string) =>
  new AiError.MalformedInput({ module: MODULE, method: "messages", description })

const toMessages = (prompt: Prompt.Prompt): Effect.Effect<Array<ChatMessage>, AiError.MalformedInput> =>
  Effect.gen(function* () {
    const messages: Array<ChatMessage> = []
    for (const message of prompt.content) {
      switch (message.role) {
        case "system":
          messages.push({ role: "system", content: message.content })
          break
        case "user": {
          if (message.content.some((part) => part.type === "file"))
            return yield* unsupported("files are not supported by the Chat Completions provider")
          messages.push({ role: "user", content: textOf(message.content) })
          break
        }
        case "assistant": {
          const calls = message.content.flatMap((part) =>
            part.type === "tool-call" && !part.providerExecuted
              ? [
                  {
                    id: part.id,
                    type: "function",
                    function: { name: part.name, arguments: JSON.stringify(part.params) },
                  },
                ]
              : [],
          )
          const text = textOf(message.content)
          messages.push({
            role: "assistant",
            content: text === "" && calls.length > 0 ? null : text,
            ...(calls.length > 0 ? { tool_calls: calls } : {}),
          })
          break
        }
        case "tool":
          for (const part of message.content)
            messages.push({ role: "tool", tool_call_id: part.id, content: JSON.stringify(part.result) })
          break
      }
    }
    return messages
  })

const toolsOf = (options: LanguageModel.ProviderOptions) => {
  if (options.tools.length === 0 || options.toolChoice === "none") return {}
  const choice = options.toolChoice
  const allowed =
    typeof choice === "object" && "oneOf" in choice
      ? options.tools.filter((tool) => choice.oneOf.includes(tool.name))
      : options.tools
  const tools = allowed.filter(Tool.isUserDefined).map((tool) => ({
    type: "function",
    function: {
      name: tool.name,
      description: tool.description ?? Tool.getDescriptionFromSchemaAst(tool.parametersSchema.ast),
      parameters: Tool.getJsonSchemaFromSchemaAst(tool.parametersSchema.ast),
    },
  }))
  const toolChoice =
    typeof choice === "string"
      ? choice
      : "tool" in choice
        ? { type: "function", function: { name: choice.tool } }
        : choice.mode === "required"
          ? "required"
          : "auto"
  return { tools, tool_choice: toolChoice }
}

const responseFormatOf = (options: LanguageModel.ProviderOptions) => {
  if (options.responseFormat.type !== "json") return {}
  const { objectName, schema } = options.responseFormat
  const description = Tool.getDescriptionFromSchemaAst(schema.ast)
  return {
    response_format: {
      type: "json_schema",
      json_schema: {
        name: objectName,
        ...(description !== undefined ? { description } : {}),
        schema: Tool.getJsonSchemaFromSchemaAst(schema.ast),
        // Strict mode refuses schemas outside its subset (optional properties, open objects, most formats); the
        // engine validates every answer itself.
        strict: false,
      },
    },
  }
}

const ChatCompletion = Schema.Struct({
  id: Schema.optional(Schema.NullOr(Schema.String)),
  model: Schema.optional(Schema.NullOr(Schema.String)),
  created: Schema.optional(Schema.NullOr(Schema.Number)),
  choices: Schema.NonEmptyArray(
    Schema.Struct({
      message: Schema.Struct({
        content: Schema.optional(Schema.NullOr(Schema.String)),
        refusal: Schema.optional(Schema.NullOr(Schema.String)),
        tool_calls: Schema.optional(
          Schema.NullOr(
            Schema.Array(
              Schema.Struct({
                id: Schema.optional(Schema.NullOr(Schema.String)),
                function: Schema.Struct({ name: Schema.String, arguments: Schema.optional(Schema.Unknown) }),
              }),
            ),
          ),
        ),
      }),
      finish_reason: Schema.optional(Schema.NullOr(Schema.String)),
    }),
  ),
  usage: Schema.optional(
    Schema.NullOr(
      Schema.Struct({
        prompt_tokens: Schema.optional(Schema.NullOr(Schema.Number)),
        completion_tokens: Schema.optional(Schema.NullOr(Schema.Number)),
      }),
    ),
  ),
})

const finishReasons: Record<string, Response.FinishReason> = {
  stop: "stop",
  length: "length",
  tool_calls: "tool-calls",
  function_call: "tool-calls",
  content_filter: "content-filter",
}

/** Arguments as JSON when they parse; as the model wrote them otherwise (the engine reads them leniently). */
const argumentsOf = (value: unknown): unknown => {
  if (typeof value !== "string") return value ?? {}
  try {
    return JSON.parse(value)
  } catch {
    return value
  }
}

const toParts = (completion: typeof ChatCompletion.Type): Array<Response.PartEncoded> => {
  const [choice] = completion.choices
  const parts: Array<Response.PartEncoded> = [
    {
      type: "response-metadata",
      ...(completion.id ? { id: completion.id } : {}),
      ...(completion.model ? { modelId: completion.model } : {}),
      ...(completion.created ? { timestamp: new Date(completion.created * 1000).toISOString() } : {}),
    },
  ]
  const text = choice.message.content ?? ""
  if (text !== "") parts.push({ type: "text", text })
  ;(choice.message.tool_calls ?? []).forEach((call, index) => {
    parts.push({
      type: "tool-call",
      id: call.id ?? `call_${index}`,
      name: call.function.name,
      params: argumentsOf(call.function.arguments),
    })
  })
  const inputTokens = completion.usage?.prompt_tokens ?? undefined
  const outputTokens = completion.usage?.completion_tokens ?? undefined
  parts.push({
    type: "finish",
    reason: finishReasons[choice.finish_reason ?? ""] ?? "unknown",
    usage: {
      inputTokens,
      outputTokens,
      totalTokens:
        inputTokens !== undefined || outputTokens !== undefined ? (inputTokens ?? 0) + (outputTokens ?? 0) : undefined,
    },
  })
  return parts
}

export const make = (
  options: ChatCompletionsOptions,
): Effect.Effect<LanguageModel.Service, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const client = failOnErrorStatus(yield* HttpClient.HttpClient)
    const url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`

    const generateText = (providerOptions: LanguageModel.ProviderOptions) =>
      Effect.gen(function* () {
        const body = {
          model: options.model,
          messages: yield* toMessages(providerOptions.prompt),
          stream: false,
          ...responseFormatOf(providerOptions),
          ...toolsOf(providerOptions),
        }
        const request = HttpClientRequest.post(url).pipe(
          HttpClientRequest.bodyUnsafeJson(body),
          HttpClientRequest.acceptJson,
          options.apiKey !== undefined && options.apiKey !== ""
            ? HttpClientRequest.bearerToken(options.apiKey)
            : (same) => same,
        )
        const response = yield* client.execute(request)
        const completion = yield* HttpClientResponse.schemaBodyJson(ChatCompletion)(response)
        return toParts(completion)
      }).pipe(
        Effect.catchTags({
          RequestError: (error) =>
            Effect.fail(AiError.HttpRequestError.fromRequestError({ module: MODULE, method: "generateText", error })),
          ResponseError: (error) =>
            AiError.HttpResponseError.fromResponseError({ module: MODULE, method: "generateText", error }),
          ParseError: (error) =>
            AiError.MalformedOutput.fromParseError({ module: MODULE, method: "generateText", error }),
        }),
      )

    return yield* LanguageModel.make({
      generateText,
      streamText: () =>
        Stream.fail(
          new AiError.MalformedInput({
            module: MODULE,
            method: "streamText",
            description: "streaming is not supported by this provider",
          }),
        ),
    })
  })

export const layer = (
  options: ChatCompletionsOptions,
): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient.HttpClient> =>
  Layer.effect(LanguageModel.LanguageModel, make(options))
