/**
 * A response body as the string a buffered Lambda result carries: text for textual types, base64 for anything else
 * (screenshots, PDFs), which API Gateway, function URLs and ALB turn back into bytes.
 */

export interface EncodedBody {
  readonly body: string
  readonly isBase64Encoded: boolean
}

const TEXT_TYPES = new Set([
  "application/json",
  "application/xml",
  "application/javascript",
  "application/x-www-form-urlencoded",
])

export const isTextual = (contentType: string | null): boolean => {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? ""
  return type.startsWith("text/") || TEXT_TYPES.has(type) || type.endsWith("+json") || type.endsWith("+xml")
}

// Fatal: bytes that are not UTF-8 (a page in windows-1252) go as base64, so that they arrive unchanged. The BOM is
// kept for the same reason.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

const asText = (bytes: Uint8Array): string | undefined => {
  try {
    return utf8.decode(bytes)
  } catch {
    return undefined
  }
}

/** Bytes of the given content type as the result's body. */
export const encodeBytes = (bytes: Uint8Array, contentType: string | null | undefined): EncodedBody => {
  if (bytes.length === 0) return { body: "", isBase64Encoded: false }
  const text = isTextual(contentType ?? null) ? asText(bytes) : undefined
  return text !== undefined
    ? { body: text, isBase64Encoded: false }
    : { body: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64"), isBase64Encoded: true }
}

export const encodeBody = async (response: Response): Promise<EncodedBody> =>
  encodeBytes(new Uint8Array(await response.arrayBuffer()), response.headers.get("content-type"))
