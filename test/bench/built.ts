/**
 * Regent as a build ships it, for benchmarks that start real processes: TypeScript run through
 * tsx wraps every function in esbuild's `__name` helper (an `Object.defineProperty` per closure
 * created), which costs several percent on hot paths that a build never pays. Bundled here with
 * esbuild (tsx's compiler) under node_modules/.cache, where Node finds the other packages, with the
 * packages `npm run build` inlines inlined as it does, and the worker modules (scripts/bundle.ts's
 * list) beside each entry as core/workers/start-worker.ts expects.
 */
import { mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { externalPackages, REQUIRE_BANNER, WORKERS } from '../../scripts/bundle.js'
import { ROOT } from '../support/logs-child.js'

/**
 * Bundles `entry` (a path from the repository root) to `<out>/<file>` and returns its path, or
 * undefined when esbuild cannot be found. `out` must lie inside the repository, where Node finds
 * the packages (`tmp/` is ignored by git).
 * @example builtEntry('cli/main.ts', 'regent.mjs') // node_modules/.cache/regent-bench/regent.mjs
 */
export function builtEntry(
  entry: string,
  file: string,
  out = join(ROOT, 'node_modules', '.cache', 'regent-bench'),
): string | undefined {
  let esbuild: { buildSync(options: Record<string, unknown>): unknown }
  try {
    const fromTsx = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'))
    esbuild = fromTsx('esbuild') as typeof esbuild
  } catch {
    return undefined
  }
  mkdirSync(out, { recursive: true })
  const external = externalPackages()
  const build = (from: string, to: string) =>
    esbuild.buildSync({
      entryPoints: [join(ROOT, from)],
      outfile: join(out, to),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      // The packages scripts/bundle.ts inlines are inlined here too: the same code loads.
      external,
      banner: { js: REQUIRE_BANNER },
      logLevel: 'silent',
    })
  build(entry, file)
  for (const worker of WORKERS) build(worker, `${worker.split('/').at(-1)!.replace(/\.ts$/, '')}.js`)
  return join(out, file)
}
