/** The limits of callers the operator did not name one by one: keyless clients and keys issued by registration. */
export const DEFAULT_KEYLESS_LIMITS = "scrape=10/min,search=5/min,parse=5/min,credits=100"
export const DEFAULT_REGISTERED_KEY_LIMITS = "scrape=60/min,crawl=5/min,batch=5/min,search=30/min,jobs=2,credits=1000"
