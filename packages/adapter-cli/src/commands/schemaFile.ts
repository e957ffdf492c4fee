/** `--schema file.json` (extract, agent): a JSON Schema read from a file, or one line saying why it cannot be. */
import { Options } from "@effect/cli"
import * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Option } from "effect"
import { CliFailure } from "../CliFailure.js"

export const schemaOption = (description: string) =>
  Options.file("schema").pipe(Options.optional, Options.withDescription(description))

/** The schema in `file`: a JSON object (the engine checks the rest, as the API does). */
export const readSchemaFile = (
  file: Option.Option<string>,
): Effect.Effect<Record<string, unknown> | undefined, CliFailure, FileSystem.FileSystem> =>
  Option.match(file, {
    onNone: () => Effect.succeed(undefined),
    onSome: (path) =>
      Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(path)).pipe(
        Effect.mapError(
          (error) =>
            new CliFailure(
              `Cannot read ${path}: ${error._tag === "SystemError" && error.reason === "NotFound" ? "no such file" : error.message}`,
            ),
        ),
        Effect.flatMap((text) =>
          Effect.try({
            try: () => JSON.parse(text) as unknown,
            catch: (error) => new CliFailure(`${path} is not valid JSON: ${(error as Error).message.split("\n")[0]}`),
          }),
        ),
        Effect.filterOrFail(
          (schema): schema is Record<string, unknown> =>
            typeof schema === "object" && schema !== null && !Array.isArray(schema),
          () => new CliFailure(`${path} must hold a JSON Schema object ({ "type": "object", "properties": … })`),
        ),
      ),
  })
