/**
 * The relay's main thread must not load the Rego engine or the compile pipeline at start: both run
 * on the compile workers, which start with the first /v1/compile request. A sidecar's idle memory
 * is paid once per agent (issue 25; docs/performance.md). Checked on the static import graph that
 * esbuild (tsx's compiler) resolves, so a new eager import anywhere on the relay's path fails here.
 */
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../../support/logs-child.js'

interface Metafile {
  inputs: Record<string, { imports: Array<{ path: string; kind: string; external?: boolean }> }>
}

type Esbuild = { buildSync(options: Record<string, unknown>): { metafile?: Metafile } }

function loadEsbuild(): Esbuild | undefined {
  try {
    const fromTsx = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'))
    return fromTsx('esbuild') as Esbuild
  } catch {
    return undefined
  }
}

const esbuild = loadEsbuild()

/** Source files (repository-relative) that `entry` loads through static imports. */
function staticGraph(entry: string): Set<string> {
  return walk(entry).files
}

/** Packages (bare specifiers) that `entry` loads through static imports. */
function staticPackages(entry: string): Set<string> {
  return walk(entry).packages
}

function walk(entry: string): { files: Set<string>; packages: Set<string> } {
  const result = (esbuild as Esbuild).buildSync({
    entryPoints: [join(ROOT, entry)],
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    write: false,
    metafile: true,
    outfile: join(ROOT, 'idle-imports.out.js'),
    logLevel: 'silent',
  })
  const inputs = (result.metafile as Metafile).inputs
  // Walk from the entry through static edges only: a dynamic import() is the lazy path we want.
  const seen = new Set<string>()
  const packages = new Set<string>()
  const queue = [entry]
  while (queue.length > 0) {
    const file = queue.pop() as string
    if (seen.has(file) || !inputs[file]) continue
    seen.add(file)
    for (const edge of inputs[file].imports) {
      if (edge.kind === 'dynamic-import') continue
      if (inputs[edge.path]) queue.push(edge.path)
      else if (edge.external) packages.add(edge.path)
    }
  }
  return { files: seen, packages }
}

/** The engine's heavy parts: what a compile request needs and an idle relay does not. */
function enginePart(file: string): boolean {
  return (
    file === 'core/rego/index.ts' ||
    file.startsWith('core/rego/compiler/') ||
    // builtins/errors.ts is one error class (the budget's default imports it); the families are heavy.
    (file.startsWith('core/rego/builtins/') && file !== 'core/rego/builtins/errors.ts') ||
    file.startsWith('core/rego/syntax/parser') ||
    file === 'compile/compile.ts'
  )
}

describe.skipIf(esbuild === undefined)('relay start-up imports (esbuild from tsx not found: skipped)', () => {
  it('the compile worker loads the engine (the check below can see it)', () => {
    const worker = [...staticGraph('relay/compile/compile-worker.ts')]
    expect(worker).toContain('core/rego/index.ts')
    expect(worker.filter(enginePart).length).toBeGreaterThan(10)
  })

  it('`regent relay` does not load the engine or the compile pipeline on its main thread', () => {
    const relay = staticGraph('cli/commands/relay.ts')
    // The compile extension itself is mounted: only what it runs is deferred to the workers.
    expect(relay.has('relay/compile/extension.ts')).toBe(true)
    expect([...relay].filter(enginePart)).toEqual([])
  })

  it('`regent relay` does not load `undici` (about 20 MB of idle RSS): upstream calls use node:http', () => {
    const packages = staticPackages('cli/commands/relay.ts')
    // The walk sees packages at all: the relay's HTTP server framework is one of them.
    expect(packages.has('hono')).toBe(true)
    expect([...packages].filter((p) => p === 'undici' || p.startsWith('undici/'))).toEqual([])
  })
})
