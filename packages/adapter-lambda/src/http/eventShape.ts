/** Which kind of HTTP event Lambda delivered: it decides how the request is read and how the answer is shaped. */

export type EventShape = "apiGatewayV1" | "apiGatewayV2" | "alb" | "albMultiValue"

export const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Undefined when the event is none of them (an SQS batch, a schedule, a direct invocation). */
export const eventShape = (event: unknown): EventShape | undefined => {
  if (!isRecord(event) || !isRecord(event.requestContext)) return undefined
  if (isRecord(event.requestContext.elb)) return isRecord(event.multiValueHeaders) ? "albMultiValue" : "alb"
  if (event.version === "2.0") return "apiGatewayV2"
  return "httpMethod" in event ? "apiGatewayV1" : undefined
}
