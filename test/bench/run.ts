/**
 * `npm run bench [-- filter...]`: runs every test/bench/*.bench.ts (or those whose name
 * contains a filter) one after another, each exporting `run(): Promise<void>` that prints its
 * figures beside a baseline measured in the same run. Each file runs in a process of its own, so
 * one benchmark's heap (the parse bench keeps gigabytes) and its compiled code never slow down the
 * next one's load generator.
 */
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import { fileURLToPath, pathToFileURL } from 'node:url'

const CHILD_FLAG = '--bench-file'
const dir = new URL('.', import.meta.url)
const childAt = process.argv.indexOf(CHILD_FLAG)

if (childAt !== -1) {
  // In the child: run one file's benchmarks.
  const file = process.argv[childAt + 1] as string
  const mod = (await import(pathToFileURL(new URL(file, dir).pathname).href)) as { run?: () => Promise<void> }
  if (typeof mod.run !== 'function') console.log(`   ${file} exports no run(); skipped`)
  else await mod.run()
} else {
  const filters = process.argv.slice(2)
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.bench.ts'))
    .filter((f) => filters.length === 0 || filters.some((filter) => f.includes(filter)))
    .sort()
  if (files.length === 0) {
    console.log(`no benchmark matches ${filters.join(', ') || '(none exist yet)'}`)
  }
  let failed = 0
  for (const file of files) {
    // Figures from a loaded machine mean little on their own: the load goes beside them.
    console.log(`\n== ${file} (load ${loadText()})`)
    const started = performance.now()
    const child = spawnSync(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), CHILD_FLAG, file],
      { stdio: 'inherit' },
    )
    if (child.status !== 0) {
      failed++
      console.log(`   ${file} failed (exit ${child.status ?? child.signal})`)
    }
    console.log(`   (${((performance.now() - started) / 1000).toFixed(1)} s; load after: ${loadText()})`)
  }
  if (failed > 0) process.exitCode = 1
}

/** The 1, 5 and 15 minute load averages, and the cores they compare with. */
function loadText(): string {
  return `${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} on ${availableParallelism()} cores`
}
