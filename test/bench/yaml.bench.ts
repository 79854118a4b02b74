/**
 * YAML parse time (core/yaml.ts, the reader of every YAML body, bundle data file and
 * `yaml.unmarshal`) for maps of 10k, 100k and 1M keys, beside `JSON.parse` of the same document
 * in the same run: the ratio moves much less with the machine's load than either figure. The time
 * per key must stay flat as the map grows (linear); before the fix the yaml package's duplicate-key
 * check made it grow with the map (quadratic), shown once at 10k keys as "uniqueKeys (old)".
 */
import { parseDocument } from 'yaml'
import { readYaml } from '../../core/yaml.js'

const SIZES = [10_000, 100_000, 1_000_000]

/** The same map of `n` keys as YAML and as JSON text. */
function documents(n: number): { yaml: string; json: string } {
  const yaml: string[] = []
  const json: string[] = []
  for (let i = 0; i < n; i++) {
    yaml.push(`key_${i}: ${i}\n`)
    json.push(`"key_${i}":${i}`)
  }
  return { yaml: yaml.join(''), json: `{${json.join(',')}}` }
}

/** Best and median milliseconds of `runs` calls. */
function measure(runs: number, fn: () => unknown): { best: number; median: number } {
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    fn()
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  return { best: times[0] as number, median: times[Math.floor(times.length / 2)] as number }
}

const ms = (x: number) => `${x.toFixed(0).padStart(7)} ms`

export async function run(): Promise<void> {
  console.log('   keys       MB   JSON.parse (best/median)   readYaml (best/median)   µs/key  YAML/JSON')
  for (const n of SIZES) {
    const { yaml, json } = documents(n)
    const runs = n >= 1_000_000 ? 1 : n >= 100_000 ? 3 : 5
    const jsonTime = measure(runs, () => JSON.parse(json))
    const yamlTime = measure(runs, () => readYaml(yaml, { maxNodes: Number.POSITIVE_INFINITY }))
    const perKey = ((yamlTime.best * 1000) / n).toFixed(1)
    console.log(
      `   ${String(n).padStart(9)} ${(yaml.length / 1e6).toFixed(1).padStart(6)}  ${ms(jsonTime.best)} /${ms(jsonTime.median)}  ${ms(yamlTime.best)} /${ms(yamlTime.median)}  ${perKey.padStart(6)}  ${(yamlTime.best / jsonTime.best).toFixed(0).padStart(6)}x`,
    )
  }
  // The old reading, for comparison at the one size where it finishes quickly.
  const { yaml } = documents(10_000)
  const old = measure(1, () => parseDocument(yaml, { uniqueKeys: true }).toJS())
  console.log(
    `   uniqueKeys (old), 10000 keys: ${ms(old.best)} (${((old.best * 1000) / 10_000).toFixed(1)} µs/key)`,
  )
  const rss = process.memoryUsage().rss
  console.log(`   RSS at the end: ${(rss / 1024 / 1024).toFixed(0)} MiB`)
}
