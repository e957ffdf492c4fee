/**
 * Checks AWS Signature Version 4 on requests a fake S3 bucket receives, computed here from the request and the secret
 * (the steps of AWS's documentation), so that a client that signs wrongly is refused as a real bucket would refuse it.
 */
import { createHash, createHmac } from "node:crypto"
import type { IncomingHttpHeaders } from "node:http"

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex")
const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest()
/** RFC 3986 encoding, as SigV4 asks. */
const encode = (value: string) =>
  encodeURIComponent(value).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)

export interface SignedRequest {
  readonly method: string
  /** Path and query as received. */
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly body: Buffer
}

/** Whether `request` carries a valid signature by `secretAccessKey`, in its Authorization header or its query. */
export const hasValidSignature = (request: SignedRequest, secretAccessKey: string): boolean => {
  const url = new URL(request.url, "http://bucket")
  const header = /^AWS4-HMAC-SHA256 Credential=([^,]+), SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
    String(request.headers.authorization ?? ""),
  )
  const presigned = url.searchParams.get("X-Amz-Signature")
  const credential = header?.[1] ?? url.searchParams.get("X-Amz-Credential")
  const signedHeaders = header?.[2] ?? url.searchParams.get("X-Amz-SignedHeaders")
  const signature = header?.[3] ?? presigned
  const amzDate = header !== null ? String(request.headers["x-amz-date"]) : url.searchParams.get("X-Amz-Date")
  if (!credential || !signedHeaders || !signature || !amzDate) return false
  const [, date, region, service] = credential.split("/")
  if (date === undefined || region === undefined || service === undefined || !amzDate.startsWith(date)) return false
  // S3 clients name the body's hash in a header; other services' clients sign the hash without sending it.
  const declared = request.headers["x-amz-content-sha256"]
  const payloadHash =
    header === null ? "UNSIGNED-PAYLOAD" : declared !== undefined ? String(declared) : sha256(request.body)
  // A header-signed body must be the body that was hashed (unless the client declared it unsigned).
  if (header !== null && payloadHash !== "UNSIGNED-PAYLOAD" && payloadHash !== sha256(request.body)) return false
  const query = [...url.searchParams]
    .filter(([name]) => name !== "X-Amz-Signature")
    .map(([name, value]) => `${encode(name)}=${encode(value)}`)
    .sort()
    .join("&")
  const names = signedHeaders.split(";")
  const canonicalHeaders = names
    .map(
      (name) =>
        `${name}:${String(request.headers[name] ?? "")
          .trim()
          .replace(/\s+/g, " ")}\n`,
    )
    .join("")
  const canonicalRequest = [request.method, url.pathname, query, canonicalHeaders, signedHeaders, payloadHash].join(
    "\n",
  )
  const scope = `${date}/${region}/${service}/aws4_request`
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256(canonicalRequest)].join("\n")
  const key = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date), region), service), "aws4_request")
  return createHmac("sha256", key).update(stringToSign).digest("hex") === signature
}
