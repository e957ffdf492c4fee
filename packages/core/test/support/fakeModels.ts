/**
 * A fake model server on 127.0.0.1 that speaks the wire formats of the real APIs, so that the real clients
 * (`@effect/ai-openai`, `@effect/ai-anthropic`, the engine's Chat Completions provider) run against it unchanged:
 *
 * - OpenAI Responses, `POST /v1/responses`: a `response` object with `output` items (`message` / `output_text`, or
 *   `function_call` when a tool is forced) and `usage.input_tokens` / `output_tokens`;
 * - OpenAI Chat Completions, `POST /v1/chat/completions`: a `chat.completion` with `choices[0].message.content` or
 *   `tool_calls`, and `usage.prompt_tokens` / `completion_tokens`;
 * - Anthropic Messages, `POST /v1/messages`: a `message` with `text` / `tool_use` content blocks, `stop_reason` and
 *   `usage.input_tokens` / `output_tokens`.
 *
 * A test scripts the answers with `reply`, which sees each request (and can decide on what its prompt says):
 *
 * ```ts
 * const model = await startFakeModel({ reply: (request) => ({ json: { title: "Hello" } }) })
 * // WEBDATA_LLM=openai:gpt-4.1-mini OPENAI_BASE_URL=model.baseUrl …
 * expect(model.requests[0]?.api).toBe("responses")
 * await model.close()
 * ```
 *
 * `{ json }` is answered the way the request asked for a value (text under a JSON Schema response format, the forced
 * tool call's input, or plain text holding the JSON); `{ text }` is sent as it is (invalid JSON, prose, fences) — as
 * a forced tool's arguments for the OpenAI APIs, as a text block (no tool call) for Anthropic. Only `stream: false`
 * is served.
 */
import { randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { listenOnLoopback } from "./loopback.js"

export type FakeApi = "responses" | "chat" | "anthropic"

/** How the request asked for its answer. */
export type FakeWants = "json-schema" | "tool" | "text"

export interface RecordedRequest {
  readonly api: FakeApi
  /** Path and query, as requested (`/v1/messages?beta=true`). */
  readonly path: string
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>
  // biome-ignore lint/suspicious/noExplicitAny: a request body as the client sent it, for tests to inspect freely.
  readonly body: any
  readonly model: string | undefined
  /** All prompt text, in order: instructions / system, messages, tool calls and their results. */
  readonly text: string
  readonly wants: FakeWants
  /** The forced tool's name, in `tool` mode. */
  readonly toolName: string | undefined
  /** The JSON Schema the answer was asked to follow (response format or forced tool), if any. */
  readonly schema: unknown
}

export interface FakeUsage {
  readonly inputTokens: number
  readonly outputTokens: number
}

interface ReplyOptions {
  /** Usage reported; default about a token per four characters of prompt and answer. */
  readonly usage?: FakeUsage
  /** Waits this long before answering. */
  readonly delayMs?: number
}

export type FakeReply =
  | ({ readonly json: unknown } & ReplyOptions)
  | ({ readonly text: string } & ReplyOptions)
  /** An error status; without `body`, the provider's own error shape with a message fitting the status. */
  | ({
      readonly status: number
      readonly body?: unknown
      readonly headers?: Readonly<Record<string, string>>
    } & ReplyOptions)
  /** Never answers (until the server is closed). */
  | { readonly hang: true }

export interface FakeModelOptions {
  readonly reply: (request: RecordedRequest) => FakeReply | Promise<FakeReply>
}

export interface FakeModel {
  /** `http://127.0.0.1:<port>/v1`: the base URL for every provider (the Anthropic provider drops the `/v1`). */
  readonly baseUrl: string
  /** Every request received, in order. */
  readonly requests: Array<RecordedRequest>
  readonly close: () => Promise<void>
}

/** Replies in the order given, the last one for every request after. */
export const replySequence = (...replies: ReadonlyArray<FakeReply>): (() => FakeReply) => {
  let next = 0
  return () => {
    const reply = replies[Math.min(next++, replies.length - 1)]
    if (reply === undefined) throw new Error("replySequence needs at least one reply")
    return reply
  }
}

const id = (prefix: string, bytes = 12) => `${prefix}${randomBytes(bytes).toString("hex")}`

const estimate = (text: string) => Math.max(1, Math.ceil(text.length / 4))

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The text of a content value in any of the three APIs' shapes. */
const contentText = (content: unknown): Array<string> => {
  if (typeof content === "string") return [content]
  if (!Array.isArray(content)) return []
  return content.flatMap((part: unknown) => {
    if (!isRecord(part)) return []
    if (typeof part.text === "string") return [part.text]
    if (part.type === "tool_use") return [JSON.stringify(part.input)]
    if (part.type === "tool_result") return contentText(part.content)
    return []
  })
}

const promptText = (api: FakeApi, body: Record<string, unknown>): string => {
  const texts: Array<string> = []
  if (api === "responses") {
    if (typeof body.instructions === "string") texts.push(body.instructions)
    const input = body.input
    if (typeof input === "string") texts.push(input)
    else if (Array.isArray(input))
      for (const item of input) {
        if (!isRecord(item)) continue
        texts.push(...contentText(item.content))
        if (item.type === "function_call" && typeof item.arguments === "string") texts.push(item.arguments)
        if (item.type === "function_call_output") texts.push(...contentText(item.output))
      }
  } else {
    if (api === "anthropic") texts.push(...contentText(body.system))
    for (const message of Array.isArray(body.messages) ? body.messages : []) {
      if (!isRecord(message)) continue
      texts.push(...contentText(message.content))
      if (Array.isArray(message.tool_calls))
        for (const call of message.tool_calls)
          if (isRecord(call) && isRecord(call.function) && typeof call.function.arguments === "string")
            texts.push(call.function.arguments)
    }
  }
  return texts.join("\n")
}

const findTool = (tools: unknown, name: string | undefined): Record<string, unknown> | undefined => {
  if (!Array.isArray(tools)) return undefined
  const all = tools.filter(isRecord)
  return name === undefined
    ? all[0]
    : all.find((tool) => tool.name === name || (isRecord(tool.function) && tool.function.name === name))
}

const toolNameOf = (tool: Record<string, unknown> | undefined): string | undefined =>
  tool === undefined
    ? undefined
    : typeof tool.name === "string"
      ? tool.name
      : isRecord(tool.function) && typeof tool.function.name === "string"
        ? tool.function.name
        : undefined

/** How the request asks for its answer, the forced tool and the schema. */
const wantsOf = (
  api: FakeApi,
  body: Record<string, unknown>,
): { wants: FakeWants; toolName: string | undefined; schema: unknown } => {
  const choice = body.tool_choice
  let forced: string | undefined | null = null
  if (api === "responses" && isRecord(choice) && choice.type === "function") forced = String(choice.name)
  if (api === "chat" && isRecord(choice) && choice.type === "function" && isRecord(choice.function))
    forced = String(choice.function.name)
  if (api === "anthropic" && isRecord(choice) && choice.type === "tool") forced = String(choice.name)
  const anyTool = choice === "required" || (isRecord(choice) && choice.type === "any")
  if (forced !== null || anyTool) {
    const tool = findTool(body.tools, forced ?? undefined)
    const name = forced ?? toolNameOf(tool)
    const schema =
      tool?.parameters ?? tool?.input_schema ?? (isRecord(tool?.function) ? tool.function.parameters : undefined)
    return { wants: "tool", toolName: name, schema }
  }
  if (
    api === "responses" &&
    isRecord(body.text) &&
    isRecord(body.text.format) &&
    body.text.format.type === "json_schema"
  )
    return { wants: "json-schema", toolName: undefined, schema: body.text.format.schema }
  if (api === "chat" && isRecord(body.response_format) && body.response_format.type === "json_schema") {
    const format = body.response_format.json_schema
    return { wants: "json-schema", toolName: undefined, schema: isRecord(format) ? format.schema : undefined }
  }
  return { wants: "text", toolName: undefined, schema: undefined }
}

const errorTypes: Record<number, readonly [openai: string, anthropic: string, message: string]> = {
  400: ["invalid_request_error", "invalid_request_error", "Invalid request."],
  401: ["invalid_request_error", "authentication_error", "Incorrect API key provided."],
  403: ["invalid_request_error", "permission_error", "You are not allowed to use this model."],
  404: ["invalid_request_error", "not_found_error", "The model does not exist."],
  429: ["requests", "rate_limit_error", "Rate limit reached for requests."],
  500: ["server_error", "api_error", "The server had an error while processing your request."],
  503: ["server_error", "overloaded_error", "The engine is currently overloaded, please try again later."],
  529: ["server_error", "overloaded_error", "Overloaded"],
}

const errorBody = (api: FakeApi, status: number): unknown => {
  const [openai, anthropic, message] =
    errorTypes[status] ??
    (status >= 500
      ? (errorTypes[500] as readonly [string, string, string])
      : (errorTypes[400] as readonly [string, string, string]))
  return api === "anthropic"
    ? { type: "error", error: { type: anthropic, message } }
    : {
        error: {
          message,
          type: openai,
          param: null,
          code: status === 401 ? "invalid_api_key" : status === 429 ? "rate_limit_exceeded" : null,
        },
      }
}

interface Answer {
  /** Text of the answer, or the forced tool's arguments. */
  readonly text: string
  /** The forced tool's input as an object (Anthropic), when the reply was `{ json }`. */
  readonly toolInput: unknown
  readonly asTool: boolean
}

const answerOf = (request: RecordedRequest, reply: { json: unknown } | { text: string }): Answer => {
  if ("json" in reply) {
    const text = JSON.stringify(reply.json)
    return { text, toolInput: reply.json, asTool: request.wants === "tool" }
  }
  // Raw text: as the forced tool's arguments where the API has them as a string; Anthropic's tool input is an
  // object, so raw text is a text block there (a model that did not call the tool).
  return { text: reply.text, toolInput: undefined, asTool: request.wants === "tool" && request.api !== "anthropic" }
}

const responsesBody = (request: RecordedRequest, answer: Answer, usage: FakeUsage) => {
  const body = request.body as Record<string, unknown>
  const output = answer.asTool
    ? [
        {
          type: "function_call",
          id: id("fc_"),
          call_id: id("call_"),
          name: request.toolName,
          arguments: answer.text,
          status: "completed",
        },
      ]
    : [
        {
          type: "message",
          id: id("msg_"),
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", text: answer.text, annotations: [], logprobs: [] }],
        },
      ]
  return {
    id: id("resp_"),
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: "completed",
    background: false,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: request.model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    service_tier: "default",
    store: body.store ?? true,
    temperature: 1,
    text: body.text ?? { format: { type: "text" } },
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    top_p: 1,
    truncation: "disabled",
    usage: {
      input_tokens: usage.inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: usage.outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: usage.inputTokens + usage.outputTokens,
    },
    user: null,
    metadata: {},
  }
}

const chatBody = (request: RecordedRequest, answer: Answer, usage: FakeUsage) => ({
  id: id("chatcmpl-", 14),
  object: "chat.completion",
  created: Math.floor(Date.now() / 1000),
  model: request.model,
  choices: [
    {
      index: 0,
      message: answer.asTool
        ? {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: id("call_"), type: "function", function: { name: request.toolName, arguments: answer.text } },
            ],
            refusal: null,
            annotations: [],
          }
        : { role: "assistant", content: answer.text, refusal: null, annotations: [] },
      logprobs: null,
      finish_reason: answer.asTool ? "tool_calls" : "stop",
    },
  ],
  usage: {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  },
  service_tier: "default",
  system_fingerprint: "fp_fake",
})

const anthropicBody = (request: RecordedRequest, answer: Answer, usage: FakeUsage) => ({
  id: id("msg_01"),
  type: "message",
  role: "assistant",
  model: request.model,
  content: answer.asTool
    ? [{ type: "tool_use", id: id("toolu_01"), name: request.toolName, input: answer.toolInput }]
    : [{ type: "text", text: answer.text }],
  stop_reason: answer.asTool ? "tool_use" : "end_turn",
  stop_sequence: null,
  usage: {
    input_tokens: usage.inputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: usage.outputTokens,
    service_tier: "standard",
  },
})

const routes: Record<string, FakeApi> = {
  "/v1/responses": "responses",
  "/v1/chat/completions": "chat",
  "/v1/messages": "anthropic",
}

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

const send = (
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
) => {
  const text = typeof body === "string" ? body : JSON.stringify(body)
  response.writeHead(status, {
    "content-type": typeof body === "string" ? "text/plain; charset=utf-8" : "application/json",
    ...headers,
  })
  response.end(text)
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Starts a fake model server; `close` it when done (it also ends requests left hanging). */
export const startFakeModel = async (options: FakeModelOptions): Promise<FakeModel> => {
  const requests: Array<RecordedRequest> = []
  const server = createServer((incoming, response) => {
    void (async () => {
      const path = incoming.url ?? "/"
      const api = routes[new URL(path, "http://fake").pathname]
      if (incoming.method !== "POST" || api === undefined)
        return send(response, 404, {
          error: { message: `Unknown route ${incoming.method} ${path}`, type: "invalid_request_error" },
        })
      let body: Record<string, unknown>
      try {
        const parsed: unknown = JSON.parse(await readBody(incoming))
        if (!isRecord(parsed)) throw new Error("not an object")
        body = parsed
      } catch {
        return send(response, 400, errorBody(api, 400))
      }
      if (body.stream === true)
        return send(response, 400, {
          error: { message: "The fake model answers stream: false only", type: "invalid_request_error" },
        })
      const headers: Record<string, string> = {}
      for (const [name, value] of Object.entries(incoming.headers))
        if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value
      const recorded: RecordedRequest = {
        api,
        path,
        headers,
        body,
        model: typeof body.model === "string" ? body.model : undefined,
        text: promptText(api, body),
        ...wantsOf(api, body),
      }
      requests.push(recorded)
      const reply = await options.reply(recorded)
      if ("hang" in reply) return
      if (reply.delayMs !== undefined) await sleep(reply.delayMs)
      if ("status" in reply)
        return send(response, reply.status, reply.body ?? errorBody(api, reply.status), reply.headers)
      const answer = answerOf(recorded, reply)
      const usage = reply.usage ?? { inputTokens: estimate(recorded.text), outputTokens: estimate(answer.text) }
      const payload =
        api === "responses"
          ? responsesBody(recorded, answer, usage)
          : api === "chat"
            ? chatBody(recorded, answer, usage)
            : anthropicBody(recorded, answer, usage)
      send(response, 200, payload, api === "anthropic" ? { "request-id": id("req_") } : { "x-request-id": id("req_") })
    })().catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, { error: { message: `fake model failed: ${String(error)}` } })
    })
  })
  const listening = await listenOnLoopback(server)
  return { baseUrl: `${listening.url}/v1`, requests, close: listening.close }
}
