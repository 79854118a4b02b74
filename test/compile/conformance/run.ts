/**
 * `npm run conformance:compile -- [folder] [--filter text] [--failures]`: runs the compile cases
 * against a live endpoint and prints a per-kind table and, last, `N passed, M failed`.
 */
import { DEFAULT_FOLDER, runAll, summarize } from './runner.js'

const args = process.argv.slice(2)
const filterAt = args.indexOf('--filter')
const filter = filterAt >= 0 ? args.splice(filterAt, 2)[1] : undefined
const showFailures = args.includes('--failures')
const folder = args.filter((a) => !a.startsWith('--'))[0] ?? DEFAULT_FOLDER

const outcomes = await runAll(folder, filter)
if (showFailures) {
  for (const o of outcomes) {
    if (o.status === 'failed') process.stdout.write(`FAIL ${o.file}\n     ${o.reason ?? ''}\n`)
  }
}
process.stdout.write(`${summarize(outcomes)}\n`)
