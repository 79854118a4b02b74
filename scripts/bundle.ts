/**
 * `npm run build`'s JavaScript: the CLI bundled with esbuild into `dist/cli/`, instead of tsc's one
 * file per module. A cold `regent test` spent about 40% of its CPU resolving, reading and compiling
 * ~210 separate modules (docs/performance.md, "regent test cold start"); one entry plus shared
 * chunks loads the same code in a few files. Type checking stays with tsc (`tsc --noEmit` in the
 * build script).
 *
 * Layout, flat in `<out>/cli/`: `main.js` (what bin/regent.js imports), one file per worker thread
 * (WORKERS), and the chunks esbuild splits out for the commands and modules loaded on demand
 * (`await import()` stays lazy: each becomes a chunk). Flat because core/workers/start-worker.ts
 * starts a worker from `./<name>.js` beside the calling module, and after bundling the caller is
 * whichever chunk holds it. Packages stay external (node_modules) but for INLINE.
 * Paths read at run time relative to a module (cli/version-info.ts: package.json;
 * service/console/console-assets.ts: dist/console) are two levels below the root in the source
 * and in `dist/cli/` alike.
 *
 * esbuild comes through tsx (a runtime dependency), the copy tsx itself compiles with, so the build
 * needs no package of its own.
 * @example node --import tsx scripts/bundle.ts            // into dist/
 * @example bundleRegent('/tmp/app/dist')                  // test/support/image-sandbox.ts
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository root (this file is in `scripts/`). */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')

/**
 * Every module started as a worker thread (`startModuleWorker(import.meta.url, '<name>')`), by its
 * path from the root. Each is an entry of its own, written as `cli/<name>.js`.
 * test/scripts/bundle.test.ts checks that every name the sources start is listed here.
 */
export const WORKERS = [
  'plugins/logs/buffer-worker.ts',
  'plugins/logs/parse-worker.ts',
  'relay/compile/compile-worker.ts',
  'service/evaluation/evaluation-worker.ts',
  'service/datasources/filter-worker.ts',
  'service/datasources/decode-worker.ts',
  'service/decision-parse-worker.ts',
  'cli/commands/test-worker.ts',
]

/**
 * Packages bundled in rather than loaded from node_modules, with the packages they depend on.
 * commander and lossless-json: every command loads them, and resolving, reading and (commander,
 * CommonJS) export-scanning them through Node's ES module loader cost ~8 ms of CPU per start.
 * The rest: what the relay loads at idle. Loaded as ~400 separate files, Node's module loader ran
 * hot enough at start that V8 optimized its resolver and CommonJS export scanner in background
 * threads, whose compile memory stayed in the process (about 10 MB of the idle relay's RSS,
 * docs/performance.md, "Relay idle memory", fifth pass); bundled, the relay loads a few chunks.
 * What stays external: js-yaml and re2js (required on first use, core/yaml-library.ts and
 * core/rego/builtins/re2.ts), better-sqlite3 (a native addon), pino (its transports start worker threads
 * from its own files), tsx (a loader), undici and the service's drivers and clients (pg, mysql2,
 * ioredis, kafkajs, kysely, ldapts: loaded only by the service or on demand, not measured).
 * test/scripts/bundle.test.ts checks that no other package's code is in the bundle.
 */
export const INLINE = new Set([
  'commander',
  'lossless-json',
  '@hono/node-server',
  'aws4fetch',
  'fast-xml-parser',
  'hono',
  'ipaddr.js',
  'jose',
  'jsonpath-plus',
  'p-retry',
  'prom-client',
  'tar-stream',
  'yaml',
  'zod',
])

/**
 * NOTE(bundle): esbuild turns a bundled CommonJS package's `require('node:events')` into its
 * `__require` helper, which in an ES module throws unless a `require` is in scope; this defines one
 * at the top of every output file. esbuild renames our own modules' top-level `require` constants
 * (`require2`, ...) so they do not shadow it.
 */
export const REQUIRE_BANNER =
  "import { createRequire as __regentCreateRequire } from 'node:module'; const require = __regentCreateRequire(import.meta.url);"

/** Every dependency but INLINE, with its subpaths, as esbuild's `external`. */
export function externalPackages(): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>
    devDependencies?: Record<string, string>
  }
  return Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })
    .filter((name) => !INLINE.has(name))
    .flatMap((name) => [name, `${name}/*`])
}

interface EsbuildApi {
  build(options: Record<string, unknown>): Promise<{ errors: unknown[]; warnings: unknown[] }>
}

function loadEsbuild(): EsbuildApi {
  const fromTsx = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'))
  return fromTsx('esbuild') as EsbuildApi
}

/**
 * Bundles the CLI and its workers into `<outDir>/cli/`. Everything else in `outDir` except the
 * console (`console/`, built by vite) is removed first, so no module of an earlier build (tsc's
 * `dist/core/…`) is left to be imported by mistake. Rejects on any esbuild error.
 */
export async function bundleRegent(outDir = join(ROOT, 'dist')): Promise<void> {
  if (existsSync(outDir)) {
    for (const entry of readdirSync(outDir)) {
      if (entry !== 'console') rmSync(join(outDir, entry), { recursive: true, force: true })
    }
  }
  const entryPoints = ['cli/main.ts', ...WORKERS].map((file) => join(ROOT, file))
  await loadEsbuild().build({
    entryPoints,
    outdir: join(outDir, 'cli'),
    // Entries are named after their file (main.js, buffer-worker.js): none of the names collide.
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: externalPackages(),
    banner: { js: REQUIRE_BANNER },
    sourcemap: true,
    logLevel: 'warning',
  })
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await bundleRegent(process.argv[2])
}
