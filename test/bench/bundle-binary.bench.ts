/**
 * Binary bundle (`regent bundle convert`, the reference tool's binary JSON data.json) against the
 * tar.gz it came from: size on disk, and load time (`readBundle`: gunzip, untar, data parse) for
 * a generated bundle of about 20 MB of JSON data. Baseline in the same run: JSON.parse of the
 * data text alone. The binary format exists for the reference tool's memory layout (it reads
 * values in place); regent builds ordinary values from it (core/bundle) or goes through JSON
 * text (the agent, for exact numbers), so expect it to load no faster than the tarball here: the
 * figures say by how much.
 */
import {
  binaryJsonToText,
  bundleFromFiles,
  readBundle,
  toBinaryBundle,
  writeBundle,
} from '../../core/bundle/index.js'

const encoder = new TextEncoder()
const TARGET_BYTES = 20 * 1024 * 1024

function generate() {
  let state = 7
  const next = () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff
    return state / 0x7fffffff
  }
  const users: Record<string, unknown> = {}
  let size = 0
  for (let u = 0; size < TARGET_BYTES; u++) {
    const user = {
      name: `User ${Math.floor(next() * 1e9).toString(36)}`,
      roles: ['reader', next() > 0.5 ? 'writer' : 'auditor'],
      quota: Number((next() * 1000).toFixed(2)),
      active: next() > 0.2,
      team: `team-${Math.floor(next() * 50)}`,
    }
    users[`user-${u}`] = user
    size += 120
  }
  const text = JSON.stringify({ users })
  return bundleFromFiles([
    { path: 'data.json', raw: encoder.encode(text) },
    { path: 'authz.rego', raw: encoder.encode('package authz\n\nallow if data.users[input.user].active\n') },
  ])
}

async function timeIt(label: string, runs: number, fn: () => Promise<unknown> | unknown): Promise<number> {
  await fn() // warm-up
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    await fn()
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  const median = times[Math.floor(times.length / 2)]!
  console.log(`   ${label.padEnd(44)} median ${median.toFixed(1)} ms over ${runs} runs`)
  return median
}

export async function run(): Promise<void> {
  const bundle = generate()
  const tarball = await writeBundle(bundle)
  const binary = (await toBinaryBundle(bundle)).bytes
  const dataText = new TextDecoder().decode(bundle.dataFiles[0]!.raw)
  console.log(`   data.json text ${(dataText.length / 1e6).toFixed(1)} MB`)
  console.log(
    `   tar.gz ${(tarball.length / 1e6).toFixed(2)} MB, binary bundle ${(binary.length / 1e6).toFixed(2)} MB`,
  )
  const limits = { maxInflatedBytes: 256 * 1024 * 1024 }
  const base = await timeIt('baseline: JSON.parse of data.json', 3, () => JSON.parse(dataText))
  const tar = await timeIt('readBundle(tar.gz)', 3, () => readBundle(tarball, limits))
  const bin = await timeIt('readBundle(binary bundle)', 3, () => readBundle(binary, limits))
  const binRaw = (await readBundle(binary, limits)).dataFiles[0]!.raw
  await timeIt('binary JSON to text alone', 3, () => binaryJsonToText(binRaw, 1e9))
  console.log(
    `   binary/tar.gz load time ratio ${(bin / tar).toFixed(2)} (parse floor ${(base / tar).toFixed(2)})`,
  )
}
