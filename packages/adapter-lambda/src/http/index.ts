/** The API over Lambda's HTTP events: API Gateway (REST and HTTP API), function URLs (buffered or streaming) and ALB. */
export { type EncodedBody, encodeBody, isTextual } from "./bodyEncoding.js"
export { clientAddress } from "./clientAddress.js"
export { type EventShape, eventShape } from "./eventShape.js"
export type {
  AlbEvent,
  AlbResult,
  ApiGatewayV1Event,
  ApiGatewayV1Result,
  ApiGatewayV2Event,
  ApiGatewayV2Result,
  BasicResult,
  LambdaHttpEvent,
  LambdaHttpResult,
} from "./events.js"
export {
  fromWebHandler,
  type HttpHandlerOptions,
  type LambdaHttpHandler,
  type WebHandlerFunction,
} from "./fromWebHandler.js"
export type { PlainHandlerFunction, PlainRequest, PlainResponse } from "./plain.js"
export { releaseOnShutdown } from "./shutdown.js"
export {
  fromWebHandlerStreaming,
  type LambdaResponseStream,
  type LambdaStreamingHandler,
  type StreamingHandlerOptions,
  type StreamMetadata,
} from "./streaming.js"
export {
  type LambdaHandlerOptions,
  type Releasable,
  toLambdaHandler,
  toStreamingLambdaHandler,
} from "./toLambdaHandler.js"
export { InvalidEvent, type RequestOptions, toRequest } from "./toRequest.js"
export { DEFAULT_MAX_RESPONSE_BYTES, plainToResult, type ResultOptions, toResult } from "./toResult.js"
