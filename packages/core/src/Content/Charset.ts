/**
 * Turns response bytes into text the way browsers pick an encoding: a byte-order mark wins, then the `charset` of
 * the Content-Type header, then a `<meta>` (or XML) declaration in the first 4 KiB, then UTF-8. Decoding never fails:
 * bytes invalid in the chosen encoding become U+FFFD, and a label the platform does not know falls back to UTF-8.
 */

const SNIFF_BYTES = 4096

const bomEncoding = (bytes: Uint8Array): string | undefined => {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8"
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le"
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be"
  return undefined
}

const headerCharset = (contentType: string | undefined): string | undefined =>
  contentType?.match(/;\s*charset\s*=\s*(["']?)([^"';\s]+)\1/i)?.[2]

const declaredCharset = (bytes: Uint8Array): string | undefined => {
  // Latin-1 maps every byte to one code unit, so ASCII markup reads correctly whatever the real encoding is.
  const head = Buffer.from(bytes.subarray(0, SNIFF_BYTES))
    .toString("latin1")
    .replace(/<!--[\s\S]*?-->/g, "")
  const meta = head.match(/<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([\w.:+-]+)/i)?.[1]
  if (meta !== undefined) {
    // A page whose <meta> is readable as ASCII cannot be UTF-16; browsers read it as UTF-8 (HTML spec 13.2.3.3).
    return /^utf-16/i.test(meta) ? "utf-8" : meta
  }
  return head.match(/^\s*<\?xml\b[^>]*?\bencoding\s*=\s*["']([\w.:+-]+)["']/i)?.[1]
}

const decoderFor = (label: string | undefined): TextDecoder | undefined => {
  if (label === undefined) return undefined
  try {
    return new TextDecoder(label.trim())
  } catch {
    return undefined // RangeError: a label outside the WHATWG Encoding list or unsupported by this runtime.
  }
}

// WHATWG index-windows-1252 for bytes 0x80-0x9F. Node 20.18.3+ decodes them as Latin-1 C1 controls
// (nodejs/node#60888); the most common legacy encoding of the web deserves its curly quotes and euro sign.
const WINDOWS_1252_C1 =
  "\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f" +
  "\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178"

/** Decodes a response body; `contentType` is the raw Content-Type header, if any. */
export const decodeBody = (bytes: Uint8Array, contentType: string | undefined): string => {
  const decoder =
    decoderFor(bomEncoding(bytes)) ??
    decoderFor(headerCharset(contentType)) ??
    decoderFor(declaredCharset(bytes)) ??
    new TextDecoder("utf-8")
  const text = decoder.decode(bytes)
  return decoder.encoding === "windows-1252"
    ? text.replace(/[\u0080-\u009f]/g, (c) => WINDOWS_1252_C1[c.charCodeAt(0) - 0x80]!)
    : text
}
