/**
 * Bundle throughput: build (assemble + sign + write tar.gz), read (gunzip + untar + parse) and
 * verify (canonical JSON digests + JWS) for a generated bundle of about 50 MB, in MB/s of bundle
 * content, with peak RSS. Baselines in the same run: gunzip alone, SHA-256 over the raw bytes and
 * JSON.parse of the data files, the floors each phase cannot beat.
 */
import { createHash, generateKeyPairSync } from 'node:crypto'
import { gunzipSync } from 'node:zlib'
import {
  type BundleEntry,
  bundleFromFiles,
  readBundle,
  signBundle,
  verifyBundle,
  writeBundle,
} from '../../core/bundle/index.js'

const TARGET_BYTES = 50 * 1024 * 1024
const encoder = new TextEncoder()

/** Deterministic pseudo-random numbers so every run builds the same bundle. */
function random(seed: number): () => number {
  let state = seed
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff
    return state / 0x7fffffff
  }
}

/** Modules and data files of realistic shape (objects of users, numbers with decimals, strings). */
function generateFiles(): BundleEntry[] {
  const next = random(42)
  const files: BundleEntry[] = []
  let total = 0
  for (let m = 0; m < 400; m++) {
    const rules = Array.from(
      { length: 40 },
      (_, r) => `rule_${r} if {\n  input.user.level >= ${r}\n  input.action == "a${r}"\n}\n`,
    )
    const raw = encoder.encode(`package app.m${m}\n\n${rules.join('\n')}`)
    files.push({ path: `app/m${m}/policy.rego`, raw })
    total += raw.byteLength
  }
  for (let d = 0; total < TARGET_BYTES; d++) {
    const users: Record<string, unknown> = {}
    for (let u = 0; u < 4000; u++) {
      users[`user-${d}-${u}`] = {
        name: `User ${Math.floor(next() * 1e9).toString(36)}`,
        roles: ['reader', next() > 0.5 ? 'writer' : 'auditor'],
        quota: Number((next() * 1000).toFixed(2)),
        active: next() > 0.2,
      }
    }
    const raw = encoder.encode(JSON.stringify({ users }, null, 1))
    files.push({ path: `app/d${d}/data.json`, raw })
    total += raw.byteLength
  }
  files.push({ path: '.manifest', raw: encoder.encode('{"revision": "bench", "roots": ["app"]}') })
  return files
}

function mbPerSecond(bytes: number, ms: number): string {
  return `${(bytes / 1024 / 1024 / (ms / 1000)).toFixed(1)} MB/s`
}

function peakRss(): string {
  return `${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`
}

async function timed<T>(fn: () => Promise<T> | T): Promise<[T, number]> {
  const started = performance.now()
  const result = await fn()
  return [result, performance.now() - started]
}

/** Prints build/read/verify throughput and baselines. */
export async function run(): Promise<void> {
  const files = generateFiles()
  const rawBytes = files.reduce((sum, f) => sum + f.raw.byteLength, 0)
  const dataBytes = files
    .filter((f) => f.path.endsWith('data.json'))
    .reduce((s, f) => s + f.raw.byteLength, 0)
  console.log(
    `   bundle: ${files.length} files, ${(rawBytes / 1024 / 1024).toFixed(1)} MB raw (${(dataBytes / 1024 / 1024).toFixed(1)} MB JSON data)`,
  )
  console.log(`   peak RSS after generating: ${peakRss()}`)
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const key = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString()

  const [assembled, assembleMs] = await timed(() => bundleFromFiles(files))
  const [signed, signMs] = await timed(() => signBundle(assembled, { key, keyId: 'bench' }))
  const [tarball, writeMs] = await timed(() => writeBundle(signed))
  const buildMs = assembleMs + signMs + writeMs
  console.log(
    `   build:  ${mbPerSecond(rawBytes, buildMs)} (assemble ${assembleMs.toFixed(0)} ms, sign ${signMs.toFixed(0)} ms, write ${writeMs.toFixed(0)} ms; ${(tarball.byteLength / 1024 / 1024).toFixed(1)} MB gzipped)  peak RSS ${peakRss()}`,
  )

  const config = { keys: { bench: { key: publicPem } }, keyId: 'bench' }
  const [read, readMs] = await timed(() => readBundle(tarball))
  console.log(`   read:   ${mbPerSecond(rawBytes, readMs)} (${readMs.toFixed(0)} ms)  peak RSS ${peakRss()}`)
  const [, verifyMs] = await timed(() => verifyBundle(read, config))
  console.log(
    `   verify: ${mbPerSecond(rawBytes, verifyMs)} (${verifyMs.toFixed(0)} ms)  peak RSS ${peakRss()}`,
  )

  const [, gunzipMs] = await timed(() => gunzipSync(tarball))
  const [, shaMs] = await timed(() => {
    for (const f of files) createHash('sha256').update(f.raw).digest()
  })
  const [, parseMs] = await timed(() => {
    const decoder = new TextDecoder()
    for (const f of files) if (f.path.endsWith('data.json')) JSON.parse(decoder.decode(f.raw))
  })
  console.log(
    `   baselines: gunzip ${mbPerSecond(rawBytes, gunzipMs)}, sha256 raw ${mbPerSecond(rawBytes, shaMs)}, JSON.parse data ${mbPerSecond(dataBytes, parseMs)}`,
  )
}
