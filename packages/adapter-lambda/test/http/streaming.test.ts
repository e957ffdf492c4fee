/**
 * The streaming handler (function URLs in RESPONSE_STREAM mode): the runtime's format (JSON metadata, 8 NUL bytes,
 * body), large bodies with backpressure, failing bodies, and the `awslambda` helpers when the runtime provides them.
 */
import { Engine, ServerConfig } from "@webdata/core"
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import { type FixtureSite, startFixtureSite } from "../../../core/test/support/fixtureSite.js"
import { fromWebHandlerStreaming, type StreamMetadata, toStreamingLambdaHandler } from "../../src/http/index.js"
import { Collector, fixture, withJson } from "./support.js"

const PRELUDE_TYPE = "application/vnd.awslambda.http-integration-response"

afterEach(() => vi.restoreAllMocks())

describe("fromWebHandlerStreaming without the runtime's helpers", () => {
  it("writes the metadata, 8 NUL bytes and the body, and ends the stream", async () => {
    const handler = fromWebHandlerStreaming(async (request) => {
      const headers = new Headers({
        "content-type": "application/json",
        "x-stage": request.headers.get("x-forwarded-prefix") ?? "",
      })
      headers.append("set-cookie", "a=1")
      headers.append("set-cookie", "b=2")
      return new Response(JSON.stringify({ path: new URL(request.url).pathname }), { status: 201, headers })
    })
    const stream = new Collector()
    await handler(fixture("http-api-v2-named-stage"), stream)
    expect(stream.writableFinished).toBe(true)
    expect(stream.contentType).toBe(PRELUDE_TYPE)
    const { metadata, body } = stream.parsed()
    expect(metadata).toEqual({
      statusCode: 201,
      headers: { "content-type": "application/json", "x-stage": "/prod" },
      cookies: ["a=1", "b=2"],
    })
    expect(JSON.parse(body.toString())).toEqual({ path: "/v2/scrape" })
  })

  it("tells the handler the source IP of the function URL's event", async () => {
    const handler = fromWebHandlerStreaming(async (_, origin) => Response.json({ address: origin?.clientAddress }))
    const stream = new Collector()
    await handler(fixture("function-url"), stream)
    expect(JSON.parse(stream.parsed().body.toString())).toEqual({ address: "198.51.100.7" })
  })

  it("streams a 24 MiB body through with backpressure: never more than a few chunks ahead of the stream", async () => {
    const chunk = 1024 * 1024
    let pulled = 0
    let lead = 0
    const stream = new Collector(2)
    const handler = fromWebHandlerStreaming(
      async () =>
        new Response(
          new ReadableStream<Uint8Array>({
            pull: (controller) => {
              if (pulled === 24) return controller.close()
              controller.enqueue(new Uint8Array(chunk).fill(pulled % 256))
              pulled++
              // Chunks read from the body but not yet taken by the stream (the prelude is two chunks).
              lead = Math.max(lead, pulled - Math.max(0, stream.chunks.length - 2))
            },
          }),
          { headers: { "content-type": "application/octet-stream" } },
        ),
    )
    await handler(fixture("function-url"), stream)
    const { metadata, body } = stream.parsed()
    expect(metadata.statusCode).toBe(200)
    expect(body.length).toBe(24 * chunk)
    expect(body[5 * chunk]).toBe(5)
    expect(body[24 * chunk - 1]).toBe(23)
    expect(lead).toBeLessThanOrEqual(4)
  })

  it("destroys the stream when the body fails half-way, after what was sent", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined)
    let sent = false
    const handler = fromWebHandlerStreaming(
      async () =>
        new Response(
          new ReadableStream<Uint8Array>({
            pull: async (controller) => {
              if (sent) {
                await new Promise((resolve) => setTimeout(resolve, 20))
                return controller.error(new Error("store connection lost"))
              }
              sent = true
              controller.enqueue(new TextEncoder().encode('{"data":['))
            },
          }),
        ),
    )
    const stream = new Collector()
    stream.on("error", () => undefined)
    await handler(fixture("function-url"), stream)
    expect(stream.destroyed).toBe(true)
    expect(stream.writableFinished).toBe(false)
    expect(stream.parsed().body.toString()).toBe('{"data":[')
    expect(logged).toHaveBeenCalledWith("Streaming the response failed", expect.any(Error))
  })

  it("a response without a body: the metadata alone, then the end", async () => {
    const handler = fromWebHandlerStreaming(
      async () => new Response(null, { status: 302, headers: { location: "/v2/openapi.json" } }),
    )
    const stream = new Collector()
    await handler(fixture("function-url"), stream)
    expect(stream.writableFinished).toBe(true)
    expect(stream.parsed()).toEqual({
      metadata: { statusCode: 302, headers: { location: "/v2/openapi.json" }, cookies: [] },
      body: Buffer.alloc(0),
    })
  })

  it("a malformed event answers 400, a throwing handler 500, in the same format", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined)
    const handler = fromWebHandlerStreaming(async () => {
      throw new Error("boom")
    })
    const bad = new Collector()
    await handler({ ...fixture("function-url"), body: "***", isBase64Encoded: true }, bad)
    expect(bad.parsed().metadata.statusCode).toBe(400)
    expect(JSON.parse(bad.parsed().body.toString())).toEqual({
      success: false,
      code: "BAD_REQUEST",
      error: "Bad request: body is not valid base64",
    })
    const failed = new Collector()
    await handler(fixture("function-url"), failed)
    expect(failed.parsed().metadata.statusCode).toBe(500)
    expect(JSON.parse(failed.parsed().body.toString())).toMatchObject({ code: "UNKNOWN_ERROR" })
    expect(failed.parsed().body.toString()).not.toContain("boom")
  })
})

/**
 * The `awslambda` global as the Node.js runtime defines it: `HttpResponseStream.from` sets the content type and
 * writes the metadata just before the stream's first write.
 */
const installRuntime = () => {
  const runtime = {
    streamifyResponse: vi.fn(<Handler>(handler: Handler) => handler),
    HttpResponseStream: {
      from: vi.fn(
        (
          stream: Collector & { _onBeforeFirstWrite?: (write: (chunk: unknown) => void) => void },
          prelude: StreamMetadata,
        ) => {
          stream.setContentType(PRELUDE_TYPE)
          const metadata = JSON.stringify(prelude)
          stream._onBeforeFirstWrite = (write) => {
            write(metadata)
            write(new Uint8Array(8))
          }
          return stream
        },
      ),
    },
  }
  ;(globalThis as { awslambda?: unknown }).awslambda = runtime
  return runtime
}

/** A Collector whose first write runs `_onBeforeFirstWrite`, as the runtime's stream does. */
const runtimeStream = () => {
  const stream = new Collector() as Collector & { _onBeforeFirstWrite?: (write: (chunk: unknown) => void) => void }
  const write = stream.write.bind(stream) as (...args: Array<unknown>) => boolean
  let first = true
  stream.write = ((...args: Array<unknown>) => {
    if (first) {
      first = false
      stream._onBeforeFirstWrite?.((chunk) => write(chunk))
    }
    return write(...args)
  }) as typeof stream.write
  return stream
}

describe("fromWebHandlerStreaming on the Lambda runtime (awslambda global)", () => {
  afterEach(() => {
    delete (globalThis as { awslambda?: unknown }).awslambda
  })

  it("wraps with streamifyResponse and writes the metadata with HttpResponseStream.from", async () => {
    const runtime = installRuntime()
    const handler = fromWebHandlerStreaming(async () => new Response("streamed text", { status: 200 }))
    expect(runtime.streamifyResponse).toHaveBeenCalledTimes(1)
    const stream = runtimeStream()
    await handler(fixture("function-url"), stream)
    expect(runtime.HttpResponseStream.from).toHaveBeenCalledTimes(1)
    expect(stream.parsed()).toEqual({
      metadata: { statusCode: 200, headers: { "content-type": "text/plain;charset=UTF-8" }, cookies: [] },
      body: Buffer.from("streamed text"),
    })
  })

  it("a response without a body still sends its status (the helper writes the metadata on the first write)", async () => {
    installRuntime()
    const handler = fromWebHandlerStreaming(async () => new Response(null, { status: 204 }))
    const stream = runtimeStream()
    await handler(fixture("function-url"), stream)
    expect(stream.writableFinished).toBe(true)
    expect(stream.parsed()).toEqual({ metadata: { statusCode: 204, headers: {}, cookies: [] }, body: Buffer.alloc(0) })
  })
})

describe("toStreamingLambdaHandler over a real engine", () => {
  let site: FixtureSite
  const handler = toStreamingLambdaHandler(Engine.layer({ allowPrivateAddresses: true }), {
    serverConfig: ServerConfig.layer({}),
  })
  beforeAll(async () => {
    site = await startFixtureSite()
  })
  afterAll(async () => {
    await handler.dispose()
    await site?.close()
  })

  it("scrapes a local page through a function URL event", async () => {
    const stream = new Collector()
    await handler(
      withJson(fixture("function-url"), { url: `${site.url}/article`, formats: ["markdown"] }, true),
      stream,
    )
    const { metadata, body } = stream.parsed()
    expect(metadata.statusCode).toBe(200)
    expect(metadata.headers["content-type"]).toMatch(/^application\/json/)
    const answer = JSON.parse(body.toString()) as { success: boolean; data: { markdown: string } }
    expect(answer.success).toBe(true)
    expect(answer.data.markdown).toContain("## How the turbines work")
  })
})
