/**
 * `npm run bench [-- filter...]`: runs every test/bench/*.bench.ts (or those whose name
 * contains a filter) one after another, each exporting `run(): Promise<void>` that prints its
 * figures beside a baseline measured in the same run.
 */
import { readdirSync } from 'node:fs'
import { pathToFileURL } from 'node:url'

const dir = new URL('.', import.meta.url)
const filters = process.argv.slice(2)
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((filter) => f.includes(filter)))
  .sort()

if (files.length === 0) {
  console.log(`no benchmark matches ${filters.join(', ') || '(none exist yet)'}`)
}
for (const file of files) {
  console.log(`\n== ${file}`)
  const started = performance.now()
  const mod = (await import(pathToFileURL(new URL(file, dir).pathname).href)) as { run?: () => Promise<void> }
  if (typeof mod.run !== 'function') {
    console.log(`   ${file} exports no run(); skipped`)
    continue
  }
  await mod.run()
  console.log(`   (${((performance.now() - started) / 1000).toFixed(1)} s)`)
}
