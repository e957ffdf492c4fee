/**
 * A web handler as a streaming Lambda handler, for function URLs in invoke mode RESPONSE_STREAM: the body flows out
 * as the API produces it, without the 6 MB limit of buffered responses (large crawl status pages).
 */
import { Readable, type Writable } from "node:stream"
import { pipeline } from "node:stream/promises"
import { clientAddress } from "./clientAddress.js"
import { badRequest, internalError } from "./envelope.js"
import type { LambdaHttpEvent } from "./events.js"
import { plainAnswer, type WebHandlerFunction } from "./fromWebHandler.js"
import type { PlainHandlerFunction, PlainResponse } from "./plain.js"
import { InvalidEvent, type RequestOptions, type RequestParts, requestParts, webRequest } from "./toRequest.js"
import { plainBytes, plainHead, responseHead } from "./toResult.js"

/** The stream the runtime hands the handler; `setContentType` is the runtime's own. */
export interface LambdaResponseStream extends Writable {
  setContentType?: (contentType: string) => void
}

export type LambdaStreamingHandler = (
  event: LambdaHttpEvent,
  responseStream: LambdaResponseStream,
  context?: unknown,
) => Promise<void>

/** The status, headers and cookies that precede the body. */
export interface StreamMetadata {
  readonly statusCode: number
  readonly headers: Record<string, string>
  readonly cookies: ReadonlyArray<string>
}

/** The `awslambda` global the Node.js runtime defines. */
interface AwsLambdaRuntime {
  readonly streamifyResponse: (handler: LambdaStreamingHandler) => LambdaStreamingHandler
  readonly HttpResponseStream: {
    readonly from: (stream: LambdaResponseStream, metadata: StreamMetadata) => LambdaResponseStream
  }
}

const runtime = (): AwsLambdaRuntime | undefined => (globalThis as { awslambda?: AwsLambdaRuntime }).awslambda

/** The content type of the runtime's format: JSON metadata, 8 NUL bytes, then the body. */
const PRELUDE_CONTENT_TYPE = "application/vnd.awslambda.http-integration-response"

/** The stream with the metadata written ahead of the body: by the runtime's helper when it is there, else here. */
const open = (
  stream: LambdaResponseStream,
  metadata: StreamMetadata,
  lambda: AwsLambdaRuntime | undefined,
): LambdaResponseStream => {
  if (lambda !== undefined) {
    const http = lambda.HttpResponseStream.from(stream, metadata)
    // The helper writes the metadata on the first write: without one (an empty body) the status would be lost
    // (aws-lambda-nodejs-runtime-interface-client#97).
    http.write("")
    return http
  }
  stream.setContentType?.(PRELUDE_CONTENT_TYPE)
  stream.write(JSON.stringify(metadata))
  stream.write(new Uint8Array(8))
  return stream
}

const send = async (
  head: StreamMetadata,
  body: Readable,
  stream: LambdaResponseStream,
  lambda: AwsLambdaRuntime | undefined,
): Promise<void> => {
  const http = open(stream, head, lambda)
  try {
    // With backpressure; ends the stream, and destroys it when the body fails, so the client sees a cut response.
    await pipeline(body, http)
  } catch (error) {
    console.error("Streaming the response failed", error)
  }
}

const sendAnswer = (
  answer: Response | PlainResponse,
  stream: LambdaResponseStream,
  lambda: AwsLambdaRuntime | undefined,
) =>
  answer instanceof Response
    ? send(
        responseHead(answer),
        answer.body === null
          ? Readable.from([])
          : Readable.fromWeb(answer.body as import("node:stream/web").ReadableStream<Uint8Array>),
        stream,
        lambda,
      )
    : send(plainHead(answer), Readable.from([plainBytes(answer)]), stream, lambda)

export interface StreamingHandlerOptions extends RequestOptions {
  /** As for the buffered handler (`HttpHandlerOptions.handlePlain`): its answers are written in one piece. */
  readonly handlePlain?: PlainHandlerFunction
}

/** Wrapped with `awslambda.streamifyResponse` on Lambda; elsewhere (tests, other hosts) the plain function. */
export const fromWebHandlerStreaming = (
  handler: WebHandlerFunction,
  options: StreamingHandlerOptions = {},
): LambdaStreamingHandler => {
  const lambda = runtime()
  const answer = async (parts: RequestParts, origin: { readonly clientAddress: string | undefined }) => {
    const plain = await plainAnswer(parts, origin, options.handlePlain)
    if (plain !== undefined) return plain
    const request = webRequest(parts)
    return request instanceof InvalidEvent ? badRequest(request.reason) : handler(request, origin)
  }
  const streaming: LambdaStreamingHandler = async (event, responseStream) => {
    const parts = requestParts(event, options)
    const response =
      parts instanceof InvalidEvent
        ? badRequest(parts.reason)
        : await answer(parts, { clientAddress: clientAddress(event) }).catch(internalError)
    await sendAnswer(response, responseStream, lambda)
  }
  return lambda === undefined ? streaming : lambda.streamifyResponse(streaming)
}
