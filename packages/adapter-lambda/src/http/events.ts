/**
 * The HTTP events Lambda receives and the results it expects back, typed here (as Hono does) rather than taken from
 * `@types/aws-lambda`: only the fields this adapter reads or writes.
 */

/** Header and query maps: API Gateway sends `null` for an empty map. */
type StringMap = Readonly<Record<string, string | undefined>> | null
type ListMap = Readonly<Record<string, ReadonlyArray<string> | undefined>> | null

/** What the payload 1.0 events (API Gateway REST API, ALB) have in common. */
interface Payload1Event {
  readonly httpMethod: string
  readonly path: string
  readonly headers?: StringMap
  readonly multiValueHeaders?: ListMap
  readonly queryStringParameters?: StringMap
  readonly multiValueQueryStringParameters?: ListMap
  readonly body?: string | null
  readonly isBase64Encoded?: boolean
}

/**
 * API Gateway REST API proxy integration, and HTTP API with payload format 1.0. `path` is the resource path, without
 * the stage that only `requestContext.path` shows; query values arrive percent-decoded.
 */
export interface ApiGatewayV1Event extends Payload1Event {
  readonly version?: "1.0"
  readonly requestContext: {
    readonly stage?: string
    /** The path as the client sent it: with the stage (or a custom domain's base path). */
    readonly path?: string
    readonly domainName?: string
    /** `sourceIp`: the address of the connection API Gateway took. */
    readonly identity?: { readonly sourceIp?: string }
  }
}

/** HTTP API with payload format 2.0; Lambda function URLs send the same (their stage is `$default`). */
export interface ApiGatewayV2Event {
  readonly version: "2.0"
  /** Percent-encoded as sent; starts with the stage when it is a named one. */
  readonly rawPath: string
  readonly rawQueryString?: string
  /** Repeated headers arrive comma-joined; cookies do not arrive here but in `cookies`. */
  readonly headers?: StringMap
  readonly cookies?: ReadonlyArray<string>
  readonly requestContext: {
    /** `sourceIp`: the address of the connection API Gateway or the function URL took. */
    readonly http: { readonly method: string; readonly sourceIp?: string }
    readonly stage?: string
    readonly domainName?: string
  }
  readonly body?: string
  readonly isBase64Encoded?: boolean
}

/**
 * Application Load Balancer target. With multi-value headers on the target group the event has `multiValueHeaders` and
 * `multiValueQueryStringParameters` instead of `headers` and `queryStringParameters`. Query values stay
 * percent-encoded as received.
 */
export interface AlbEvent extends Payload1Event {
  readonly requestContext: { readonly elb: { readonly targetGroupArn: string } }
}

export type LambdaHttpEvent = ApiGatewayV1Event | ApiGatewayV2Event | AlbEvent

/** What every HTTP integration accepts: the answer to an event whose kind is unknown. */
export interface BasicResult {
  readonly statusCode: number
  readonly headers: Record<string, string>
  readonly body: string
  readonly isBase64Encoded: boolean
}

/** API Gateway merges `multiValueHeaders` into `headers`: every `Set-Cookie` goes in the former. */
export interface ApiGatewayV1Result extends BasicResult {
  readonly multiValueHeaders: Record<string, ReadonlyArray<string>>
}

export interface ApiGatewayV2Result extends BasicResult {
  readonly cookies: ReadonlyArray<string>
}

/** An ALB answers in the form it was asked in: `headers`, or `multiValueHeaders` when the target group has them. */
export interface AlbResult {
  readonly statusCode: number
  /** `200 OK`: the status line's text, which the load balancer needs. */
  readonly statusDescription: string
  readonly headers?: Record<string, string>
  readonly multiValueHeaders?: Record<string, ReadonlyArray<string>>
  readonly body: string
  readonly isBase64Encoded: boolean
}

export type LambdaHttpResult = BasicResult | ApiGatewayV1Result | ApiGatewayV2Result | AlbResult
