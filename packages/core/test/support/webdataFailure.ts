/** The `WebdataError` a facade call rejects with (any other outcome fails the test). */
import { WebdataError } from "../../src/Webdata.js"

export const failure = async (promise: Promise<unknown>): Promise<WebdataError> => {
  try {
    await promise
  } catch (error) {
    if (error instanceof WebdataError) return error
    throw error
  }
  throw new Error("expected the call to fail")
}
