/** The non-HTTP events the worker functions receive, typed here: only the fields they read or write. */

/** What the handlers use of Lambda's context object. */
export interface LambdaContext {
  /** Milliseconds before Lambda stops the invocation (the function's timeout). */
  readonly getRemainingTimeInMillis: () => number
}

/** An SQS event source mapping's batch. */
export interface SqsEvent {
  readonly Records: ReadonlyArray<{ readonly messageId: string; readonly body: string }>
}

/**
 * The answer that lets SQS delete the batch's other messages and deliver these again (the event source mapping needs
 * `FunctionResponseTypes: [ReportBatchItemFailures]`).
 */
export interface SqsBatchResponse {
  readonly batchItemFailures: ReadonlyArray<{ readonly itemIdentifier: string }>
}

/** An EventBridge (CloudWatch Events) scheduled event; nothing in it is read. */
export interface ScheduledEvent {
  readonly "detail-type"?: string
  readonly time?: string
}
