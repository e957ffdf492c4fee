/**
 * Lambda events as API Gateway and SQS send them, and the context object, for invoking the bundle's handlers in
 * process (`probe.mjs`, `run.mjs`, `bench/test/lambdaExample.test.ts`). Only plain Node: the probe runs without a loader.
 */

let requests = 0

/** An HTTP API (payload 2.0, `$default` stage) event: `method path`, with `body` sent as JSON when given. */
export const httpApiEvent = (method, path, body, headers = {}) => {
  const [rawPath, rawQueryString = ""] = path.split("?")
  const domainName = "p0o9i8u7y6.execute-api.us-east-1.amazonaws.com"
  return {
    version: "2.0",
    routeKey: "$default",
    rawPath,
    rawQueryString,
    headers: {
      accept: "application/json",
      host: domainName,
      "user-agent": "webdata-bench",
      "x-forwarded-proto": "https",
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...headers,
    },
    requestContext: {
      accountId: "123456789012",
      apiId: "p0o9i8u7y6",
      domainName,
      http: { method, path: rawPath, protocol: "HTTP/1.1", sourceIp: "203.0.113.20", userAgent: "webdata-bench" },
      requestId: `bench-${++requests}`,
      routeKey: "$default",
      stage: "$default",
      timeEpoch: Date.now(),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    isBase64Encoded: false,
  }
}

/** An SQS event source mapping's batch of `bodies`. */
export const sqsEvent = (bodies) => ({
  Records: bodies.map((body, index) => ({
    messageId: `message-${++requests}-${index}`,
    receiptHandle: "handle",
    body,
    attributes: {},
    messageAttributes: {},
    eventSource: "aws:sqs",
    eventSourceARN: "arn:aws:sqs:us-east-1:123456789012:webdata-work",
    awsRegion: "us-east-1",
  })),
})

/** An EventBridge scheduled event. */
export const scheduledEvent = () => ({
  version: "0",
  id: `schedule-${++requests}`,
  "detail-type": "Scheduled Event",
  source: "aws.events",
  time: new Date().toISOString(),
  region: "us-east-1",
  resources: ["arn:aws:events:us-east-1:123456789012:rule/webdata-sweep"],
  detail: {},
})

/** What the handlers read of Lambda's context: the time left of an invocation of `timeoutMs`. */
export const lambdaContext = (timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs
  return {
    awsRequestId: `context-${++requests}`,
    functionName: "webdata-bench",
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  }
}
