/** Web Responses as the result each integration expects: shapes, cookies, text or base64, the size limit. */
import { describe, expect, it } from "vitest"
import type { AlbResult, ApiGatewayV1Result, ApiGatewayV2Result, BasicResult } from "../../src/http/index.js"
import { toResult } from "../../src/http/index.js"
import { fixture, json } from "./support.js"

const withCookies = () => {
  const headers = new Headers({ "content-type": "application/json", "x-request-id": "r-1" })
  headers.append("set-cookie", "session=new; Path=/; HttpOnly")
  headers.append("set-cookie", "theme=light; Path=/; Expires=Wed, 21 Oct 2026 07:28:00 GMT")
  headers.append("vary", "accept")
  headers.append("vary", "origin")
  return new Response(JSON.stringify({ success: true }), { status: 201, headers })
}

const COOKIES = ["session=new; Path=/; HttpOnly", "theme=light; Path=/; Expires=Wed, 21 Oct 2026 07:28:00 GMT"]

/** Every byte value, several times: not UTF-8. */
const binary = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 31 + 7) % 256)
const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...binary])

const decoded = (result: { body: string; isBase64Encoded: boolean }): Buffer =>
  result.isBase64Encoded ? Buffer.from(result.body, "base64") : Buffer.from(result.body, "utf8")

describe("toResult", () => {
  it("REST v1: every Set-Cookie in multiValueHeaders, the other headers in headers", async () => {
    const result = (await toResult(withCookies(), fixture("api-gateway-rest-v1"))) as ApiGatewayV1Result
    expect(result).toEqual({
      statusCode: 201,
      headers: { "content-type": "application/json", "x-request-id": "r-1", vary: "accept, origin" },
      multiValueHeaders: { "set-cookie": COOKIES },
      body: '{"success":true}',
      isBase64Encoded: false,
    })
  })

  it("HTTP API v2 and function URLs: Set-Cookie headers become `cookies`", async () => {
    for (const name of ["http-api-v2-named-stage", "function-url"] as const) {
      const result = (await toResult(withCookies(), fixture(name))) as ApiGatewayV2Result
      expect(result).toEqual({
        statusCode: 201,
        headers: { "content-type": "application/json", "x-request-id": "r-1", vary: "accept, origin" },
        cookies: COOKIES,
        body: '{"success":true}',
        isBase64Encoded: false,
      })
    }
  })

  it("ALB: a status description, and the header form the request came in", async () => {
    const single = (await toResult(withCookies(), fixture("alb"))) as AlbResult
    expect(single.statusDescription).toBe("201 Created")
    expect(single.multiValueHeaders).toBeUndefined()
    // One value per header name: the first cookie.
    expect(single.headers).toEqual({
      "content-type": "application/json",
      "x-request-id": "r-1",
      vary: "accept, origin",
      "set-cookie": COOKIES[0],
    })
    const multi = (await toResult(withCookies(), fixture("alb-multi-value"))) as AlbResult
    expect(multi.headers).toBeUndefined()
    expect(multi.multiValueHeaders).toEqual({
      "content-type": ["application/json"],
      "x-request-id": ["r-1"],
      vary: ["accept, origin"],
      "set-cookie": COOKIES,
    })
    const ok = (await toResult(new Response("fine"), fixture("alb"))) as AlbResult
    expect(ok.statusDescription).toBe("200 OK")
  })

  it("a PNG, a PDF and octet-stream go as base64 and decode to the same bytes", async () => {
    for (const type of ["image/png", "application/pdf", "application/octet-stream"]) {
      for (const name of ["api-gateway-rest-v1", "function-url", "alb", "alb-multi-value"] as const) {
        const result = (await toResult(
          new Response(png, { headers: { "content-type": type } }),
          fixture(name),
        )) as BasicResult
        expect(result.isBase64Encoded, `${type} ${name}`).toBe(true)
        expect(decoded(result).equals(png)).toBe(true)
      }
    }
  })

  it("textual types go as text; text that is not UTF-8 goes as base64, unchanged; a BOM stays", async () => {
    const event = fixture("function-url")
    for (const type of [
      "text/html; charset=utf-8",
      "text/markdown",
      "application/json",
      "application/problem+json",
      "image/svg+xml",
      "application/xml",
      "application/javascript",
      "application/x-www-form-urlencoded",
    ]) {
      const result = (await toResult(
        new Response("caf\u00e9 \u2603", { headers: { "content-type": type } }),
        event,
      )) as BasicResult
      expect(result, type).toMatchObject({ body: "caf\u00e9 \u2603", isBase64Encoded: false })
    }
    const latin1 = Buffer.from("<p>caf\u00e9 cr\u00e8me</p>", "latin1")
    const page = (await toResult(
      new Response(latin1, { headers: { "content-type": "text/html; charset=windows-1252" } }),
      event,
    )) as BasicResult
    expect(page.isBase64Encoded).toBe(true)
    expect(decoded(page).equals(latin1)).toBe(true)
    const bom = Buffer.from("\ufeff{}", "utf8")
    const withBom = (await toResult(
      new Response(bom, { headers: { "content-type": "application/json" } }),
      event,
    )) as BasicResult
    expect(decoded(withBom).equals(bom)).toBe(true)
    // No type: the body cannot be known to be text.
    const untyped = (await toResult(new Response(new Uint8Array([104, 105])), event)) as BasicResult
    expect(untyped.isBase64Encoded).toBe(true)
  })

  it("no body: an empty text body, whatever the type", async () => {
    const result = (await toResult(
      new Response(null, { status: 204, headers: { "content-type": "image/png" } }),
      fixture("api-gateway-rest-v1"),
    )) as ApiGatewayV1Result
    expect(result).toMatchObject({ statusCode: 204, body: "", isBase64Encoded: false })
  })

  it("an event of unknown kind gets the shape both API Gateway formats accept", async () => {
    const result = await toResult(withCookies(), { Records: [] })
    expect(Object.keys(result).sort()).toEqual(["body", "headers", "isBase64Encoded", "statusCode"])
  })

  it("a result over maxResponseBytes is a 502 RESPONSE_TOO_LARGE in the event's shape", async () => {
    const body = JSON.stringify({ success: true, data: "x".repeat(2000) })
    const result = (await toResult(
      new Response(body, { headers: { "content-type": "application/json", "set-cookie": "a=1" } }),
      fixture("http-api-v2-named-stage"),
      { maxResponseBytes: 1500 },
    )) as ApiGatewayV2Result
    expect(result.statusCode).toBe(502)
    expect(result.cookies).toEqual([])
    const envelope = json(result) as { success: boolean; code: string; error: string }
    expect(envelope.success).toBe(false)
    expect(envelope.code).toBe("RESPONSE_TOO_LARGE")
    expect(envelope.error).toMatch(/^The response is 2\d{3} bytes, over Lambda's limit of 1500 bytes for buffered/)
    expect(envelope.error).toContain("page with limit/skip or use the streaming handler")
    expect(envelope.error).not.toContain("\n")
  })

  it("the default limit counts the encoded result: 4.6 MB of PNG is over it as base64, 5.5 MB of text is not", async () => {
    const event = fixture("function-url")
    const image = new Uint8Array(4_600_000).fill(0xff)
    const tooBig = await toResult(new Response(image, { headers: { "content-type": "image/png" } }), event)
    expect(tooBig.statusCode).toBe(502)
    expect((json(tooBig) as { error: string }).error).toMatch(/^The response is 61\d{5} bytes/)
    const text = "a".repeat(5_500_000)
    const fits = await toResult(new Response(text, { headers: { "content-type": "text/plain" } }), event)
    expect(fits).toMatchObject({ statusCode: 200, body: text })
    const overText = await toResult(new Response(`${text}${"b".repeat(600_000)}`), event)
    expect(overText.statusCode).toBe(502)
  })
})
