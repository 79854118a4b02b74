/**
 * Starts a worker thread from a module beside the caller's file: the compiled `.js` in a build
 * (or beside a bundled entry, as test/bench/built.ts lays them out); in a source checkout (run through tsx) the `.ts` bundled into one plain script with esbuild (the
 * compiler tsx itself uses), so the worker carries no TypeScript loader. A worker that registers
 * tsx costs about 30 MB more resident memory, since tsx's module hooks run on a thread of their
 * own; when esbuild cannot be found the worker registers tsx after all.
 */
import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Worker, type WorkerOptions } from 'node:worker_threads'

/** The script bundled for each worker module, built once per process. */
const bundles = new Map<string, string>()

interface EsbuildOutput {
  outputFiles: Array<{ text: string }>
}

interface EsbuildApi {
  buildSync(options: Record<string, unknown>): EsbuildOutput
  build(options: Record<string, unknown>): Promise<EsbuildOutput>
}

/**
 * Starts `name` (e.g. 'buffer-worker') from the folder of `callerUrl` (the caller's
 * `import.meta.url`) as a worker thread.
 * @example startModuleWorker(import.meta.url, 'parse-worker', { resourceLimits: { maxYoungGenerationSizeMb: 4 } })
 */
export function startModuleWorker(callerUrl: string, name: string, options: WorkerOptions = {}): Worker {
  const fromSource = callerUrl.endsWith('.ts')
  if (!fromSource) return new Worker(new URL(`./${name}.js`, callerUrl), options)
  const entry = new URL(`./${name}.ts`, callerUrl)
  const script = bundled(entry)
  if (script !== undefined) return new Worker(script, { ...options, eval: true })
  // Resolved here, next to this file: the worker's own resolution would start from the cwd.
  const bootstrap = `import(${JSON.stringify(resolveTsxEsmApi())}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}) })`
  return new Worker(bootstrap, { ...options, eval: true })
}

/**
 * Gets `name` (as startModuleWorker takes it) ready to start without holding the event loop: in a
 * source checkout its bundle is built by esbuild's asynchronous API (esbuild works in a process of
 * its own; the synchronous build startModuleWorker falls back to holds the caller's thread for
 * about half a second). Nothing to do in a build. Safe to call again: one build per module.
 */
export function prepareModuleWorker(callerUrl: string, name: string): Promise<void> {
  if (!callerUrl.endsWith('.ts')) return Promise.resolve()
  const entry = new URL(`./${name}.ts`, callerUrl)
  if (bundles.has(entry.href)) return Promise.resolve()
  let pending = preparing.get(entry.href)
  if (!pending) {
    const esbuild = loadEsbuild()
    pending = esbuild
      ? esbuild
          .build(buildOptions(entry))
          .then((output) => {
            bundles.set(entry.href, wrap(entry, output))
          })
          // The synchronous build at start reports the failure, or tsx takes over.
          .catch(() => {})
      : Promise.resolve()
    preparing.set(entry.href, pending)
  }
  return pending
}

/** Asynchronous builds in progress, by entry. */
const preparing = new Map<string, Promise<void>>()

function loadEsbuild(): EsbuildApi | undefined {
  try {
    const fromTsx = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'))
    return fromTsx('esbuild') as EsbuildApi
  } catch {
    return undefined
  }
}

function buildOptions(entry: URL): Record<string, unknown> {
  return {
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    // A CommonJS bundle has no import.meta: modules that resolve packages lazily from their own
    // URL (createRequire(import.meta.url), the built-ins' client libraries) get the entry's.
    define: { 'import.meta.url': JSON.stringify(entry.href) },
    write: false,
    logLevel: 'silent',
  }
}

/**
 * An eval'd worker resolves `require` from the working directory: the bundle gets one that
 * resolves from the module's own folder, where its packages (better-sqlite3, ...) are found.
 */
function wrap(entry: URL, output: EsbuildOutput): string {
  const file = fileURLToPath(entry)
  return `(function (require) {\n${output.outputFiles[0]!.text}\n})(require('node:module').createRequire(${JSON.stringify(file)}))`
}

function bundled(entry: URL): string | undefined {
  const cached = bundles.get(entry.href)
  if (cached !== undefined) return cached
  const esbuild = loadEsbuild()
  if (!esbuild) return undefined
  const script = wrap(entry, esbuild.buildSync(buildOptions(entry)))
  bundles.set(entry.href, script)
  return script
}

/** The ESM build of tsx's loader API (its CommonJS build cannot register hooks when imported). */
function resolveTsxEsmApi(): string {
  const resolve = (import.meta as { resolve?: (specifier: string) => string }).resolve
  if (typeof resolve === 'function') return resolve('tsx/esm/api')
  // Where import.meta.resolve is missing (test runners' transforms): the require build's path,
  // with the ESM file beside it.
  return pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href
}
