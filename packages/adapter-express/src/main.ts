/** `npm start`: the API (and, from the jobs issue on, a worker) on PORT/HOST, configured from the environment. */
import { enginesLine, serve } from "./serve.js"

const port = Number(process.env.PORT ?? 3002)
const host = process.env.HOST ?? "127.0.0.1"

const running = await serve({ port, host }).catch((error: unknown) => {
  console.error(`webdata: cannot start the server on ${host}:${port}: ${(error as Error).message}`)
  process.exit(1)
})
console.log(`webdata API listening on ${running.url}`)
console.log(enginesLine())

const shutdown = () => {
  running.close().then(
    () => process.exit(0),
    () => process.exit(1),
  )
}
process.once("SIGINT", shutdown)
process.once("SIGTERM", shutdown)
