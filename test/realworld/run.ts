/**
 * `npm run realworld [-- [folder] [--only name]]`: runs the shared real-world corpus with this checkout's
 * `regent` and prints one line per library, then `N passed, M failed`. Skips with a message when
 * the corpus folder is absent (it lives outside the repository).
 */
import { corpusPresent, DEFAULT_FOLDER, runRealworld } from './runner.js'

const args = process.argv.slice(2)
const onlyAt = args.indexOf('--only')
const only = onlyAt >= 0 ? args[onlyAt + 1] : undefined
if (onlyAt >= 0) args.splice(onlyAt, 2)
const folder = args.find((a) => !a.startsWith('--')) ?? process.env.REGENT_REALWORLD_DIR ?? DEFAULT_FOLDER

if (!corpusPresent(folder)) {
  process.stdout.write(`realworld: ${folder}/run.sh not found; skipping the real-world corpus\n`)
} else {
  await runRealworld(folder, { only, onLine: (line) => process.stdout.write(`${line}\n`) })
}
