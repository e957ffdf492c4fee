/**
 * Running an extract, an llms.txt generation or an agent from the CLI: start it, follow it to its end (an agent's
 * steps on stderr as they are recorded), and print its data on stdout (JSON; an llms.txt as its text); a failed or
 * cancelled run is the CLI's one-line failure. Ctrl-C cancels an agent run; an extract or llms.txt generation cannot
 * be cancelled, so Ctrl-C only stops following it.
 */
import { Console, Effect, Stream } from "effect"
import { CliFailure } from "./CliFailure.js"
import { type AgentStep, JobClient, type LlmsTxtAnswer, RUN_POLL, type RunStatus } from "./JobClient.js"
import { stopOnCtrlC } from "./Signals.js"

export interface RunOutput {
  /** Print the whole status answer instead of its data. */
  readonly json: boolean
}

/** Reads the status until the run has ended. */
const untilEnded = <A extends { readonly status: RunStatus }, E>(read: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  Effect.gen(function* () {
    for (;;) {
      const answer = yield* read
      if (answer.status !== "processing") return answer
      yield* Effect.sleep(RUN_POLL)
    }
  })

/**
 * Follows a run that cannot be cancelled to its end; Ctrl-C stops following it (on a server, the run goes on there).
 */
const followToEnd = <A extends { readonly status: RunStatus }, E>(
  noun: string,
  id: string,
  read: Effect.Effect<A, E>,
  remote: boolean,
) =>
  Effect.raceFirst(
    untilEnded(read),
    stopOnCtrlC(
      Effect.void,
      remote ? `stopped following ${noun} ${id} (it runs on at the server)` : `${noun} ${id} stopped`,
    ),
  )

/** Text as one line: what the CLI prints of an error is one line. */
export const oneLine = (text: string) => text.replace(/\s+/g, " ").trim()

const pretty = (value: unknown) => Console.log(JSON.stringify(value ?? null, null, 2))

/**
 * The status answer (`--json`) or its data on stdout (`print`, JSON unless told); a run that did not complete fails
 * with its error.
 */
const finish = <A extends { readonly status: RunStatus; readonly data?: unknown; readonly error?: string }>(
  noun: string,
  answer: A,
  output: RunOutput,
  print: (answer: A) => Effect.Effect<void, CliFailure> = (completed) => pretty(completed.data),
) =>
  Effect.gen(function* () {
    if (output.json) yield* pretty(answer)
    if (answer.status === "failed" || answer.status === "cancelled")
      return yield* Effect.fail(
        new CliFailure(
          oneLine(answer.error ?? `The ${noun} ${answer.status === "failed" ? "failed" : "was cancelled"}`),
        ),
      )
    if (!output.json) yield* print(answer)
  })

const skipped = (invalid: ReadonlyArray<string> | undefined) =>
  Effect.forEach(invalid ?? [], (url) => Console.error(`skipped invalid URL: ${url}`), { discard: true })

export interface ExtractOutput extends RunOutput {
  /** Also list which URLs gave each field (on stderr). */
  readonly showSources: boolean
  /** The extract runs on a server, which goes on with it when the CLI stops following. */
  readonly remote: boolean
}

/** `POST /v2/extract`, followed to its end: warnings on stderr, the merged data on stdout. */
export const runExtract = (
  body: Record<string, unknown>,
  output: ExtractOutput,
): Effect.Effect<void, CliFailure, JobClient> =>
  Effect.gen(function* () {
    const client = yield* JobClient
    const started = yield* client.startExtract(body)
    yield* skipped(started.invalidURLs)
    const answer = yield* followToEnd("extract", started.id, client.extractStatus(started.id), output.remote)
    if (!output.json) {
      const warnings = answer.warnings ?? (answer.warning !== undefined ? [answer.warning] : [])
      for (const warning of warnings) yield* Console.error(`warning: ${warning}`)
      if (output.showSources && answer.status === "completed")
        for (const [field, urls] of Object.entries(answer.sources ?? {}))
          yield* Console.error(`source: ${field}: ${urls.join(", ")}`)
    }
    yield* finish("extract", answer, output)
  })

export interface LlmsTxtOutput extends RunOutput {
  /** Print llms-full.txt instead of llms.txt (the body must ask for it with `showFullText`). */
  readonly full: boolean
  /** The generation runs on a server, which goes on with it when the CLI stops following. */
  readonly remote: boolean
}

/** The file's text as it is: it ends with a newline, which `Console.log` adds back. */
const printText = (text: string) => Console.log(text.endsWith("\n") ? text.slice(0, -1) : text)

/** `POST /v1/llmstxt`, followed to its end: warnings on stderr, the llms.txt (or llms-full.txt) text on stdout. */
export const runLlmsTxt = (
  body: Record<string, unknown>,
  output: LlmsTxtOutput,
): Effect.Effect<void, CliFailure, JobClient> =>
  Effect.gen(function* () {
    const client = yield* JobClient
    const started = yield* client.startLlmsTxt(body)
    const answer = yield* followToEnd("llmstxt", started.id, client.llmsTxtStatus(started.id), output.remote)
    if (!output.json) for (const warning of answer.warnings ?? []) yield* Console.error(`warning: ${warning}`)
    yield* finish("llms.txt generation", answer, output, (completed: LlmsTxtAnswer) => {
      const text = output.full ? completed.data?.llmsfulltxt : completed.data?.llmstxt
      return text === undefined
        ? Effect.fail(new CliFailure(`The answer has no ${output.full ? "llms-full.txt" : "llms.txt"} text`))
        : printText(text)
    })
  })

/** A step as one line: `step 3  scrape  https://…  → Read Example Domain`. */
export const stepLine = (step: AgentStep): string => {
  const input = Object.entries(step.input).flatMap(([key, value]) =>
    typeof value !== "string" || value.trim() === ""
      ? []
      : [key === "url" ? oneLine(value) : JSON.stringify(oneLine(value))],
  )
  return [`step ${step.step}`, step.tool, ...input, `→ ${oneLine(step.output)}`].join("  ")
}

/** `POST /v2/agent`: its steps on stderr as they happen, then its data on stdout; Ctrl-C cancels the run. */
export const runAgent = (
  body: Record<string, unknown>,
  output: RunOutput,
): Effect.Effect<void, CliFailure, JobClient> =>
  Effect.gen(function* () {
    const client = yield* JobClient
    const { id } = yield* client.startAgent(body)
    const answer = yield* Effect.raceFirst(
      // The steps end with the run; its status says how it ended.
      Stream.runForEach(client.agentSteps(id), (step) => Console.error(stepLine(step))).pipe(
        Effect.zipRight(untilEnded(client.agentStatus(id))),
      ),
      stopOnCtrlC(client.cancelAgent(id), `agent ${id} cancelled`),
    )
    yield* finish("agent run", answer, output)
  })
