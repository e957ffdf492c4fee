/**
 * The client's address as API Gateway or the function URL saw the connection: `requestContext.identity.sourceIp`
 * (REST API, payload 1.0) or `requestContext.http.sourceIp` (payload 2.0, function URLs). Never a header: a client
 * writes its own `X-Forwarded-For`. An ALB event carries the address only in that header (which, depending on the
 * load balancer's settings, may be the client's own), so it has none.
 */
import { isIP } from "node:net"
import { eventShape, isRecord } from "./eventShape.js"

const sourceIpOf = (holder: unknown): string | undefined => {
  const sourceIp = isRecord(holder) ? holder.sourceIp : undefined
  // A console test invocation reports `test-invoke-source-ip`: no address to limit by.
  return typeof sourceIp === "string" && isIP(sourceIp) !== 0 ? sourceIp : undefined
}

export const clientAddress = (event: unknown): string | undefined => {
  const shape = eventShape(event)
  if (shape !== "apiGatewayV1" && shape !== "apiGatewayV2") return undefined
  const context = (event as { readonly requestContext: Readonly<Record<string, unknown>> }).requestContext
  return sourceIpOf(shape === "apiGatewayV2" ? context.http : context.identity)
}
