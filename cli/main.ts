/** Entry point of the `regent` executable (see bin/regent.js). */
import { runCli } from './program.js'

// `regent … | head` closes the pipe early: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0)
    throw err
  })
}

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    process.stderr.write(`regent: ${err instanceof Error ? err.message : String(err)}\n`)
    process.exitCode = 1
  },
)
