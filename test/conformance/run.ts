/**
 * `npm run conformance -- [folder] [--filter category] [--failures]`: runs OPA's compliance cases
 * and prints a per-category table, missing built-ins, and last `N passed, M failed`.
 */
import { DEFAULT_FOLDER, runAll, summarize } from './runner.js'

const args = process.argv.slice(2)
const flag = (name: string) => {
  const i = args.indexOf(name)
  if (i < 0) return undefined
  const v = args[i + 1]
  args.splice(i, 2)
  return v
}
const filter = flag('--filter')
const showFailures = args.includes('--failures')
const positional = args.filter((a) => !a.startsWith('--'))
const folder = positional[0] ?? DEFAULT_FOLDER

const outcomes = await runAll(folder, filter)
if (showFailures) {
  for (const o of outcomes) if (!o.passed) process.stdout.write(`FAIL ${o.note}\n     ${o.reason ?? ''}\n`)
}
process.stdout.write(`${summarize(outcomes)}\n`)
