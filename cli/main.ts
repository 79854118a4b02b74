/** Entry point of the `regent` executable (see bin/regent.js). */
import { runCli } from './program.js'

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    process.stderr.write(`regent: ${err instanceof Error ? err.message : String(err)}\n`)
    process.exitCode = 1
  },
)
