/**
 * The address of the client a request came from, as the host tells it (Express's `req.ip`, which believes
 * `X-Forwarded-For` only from the proxies `WEBDATA_TRUST_PROXY` names; API Gateway's source IP). Hosts pass it to
 * `WebHandler.handler`; nothing reads it from a request header, which any client could write.
 */
import { Context } from "effect"

export class ClientAddress extends Context.Tag("@webdata/core/ClientAddress")<ClientAddress, string>() {}
