/**
 * pdf.js in unpdf 1.7 draws pages with `ArrayBuffer.prototype.transferToFixedLength` (ES2024, Node 21+); on Node 20
 * every page would render blank, and OCR would read nothing. A copy gives pdf.js what it uses the method for (a
 * fixed-length buffer of the same bytes); the original stays usable, which pdf.js does not rely on either way.
 */
const prototype = ArrayBuffer.prototype as ArrayBuffer & { transferToFixedLength?: (length?: number) => ArrayBuffer }
if (typeof prototype.transferToFixedLength !== "function")
  Object.defineProperty(ArrayBuffer.prototype, "transferToFixedLength", {
    configurable: true,
    writable: true,
    value(this: ArrayBuffer, length?: number) {
      const copy = new ArrayBuffer(length ?? this.byteLength)
      new Uint8Array(copy).set(new Uint8Array(this, 0, Math.min(copy.byteLength, this.byteLength)))
      return copy
    },
  })
