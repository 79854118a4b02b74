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
  inputs: Record<string, { imports: Array<{ path: string; kind: string }> }>
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
  const queue = [entry]
  while (queue.length > 0) {
    const file = queue.pop() as string
    if (seen.has(file) || !inputs[file]) continue
    seen.add(file)
    for (const edge of inputs[file].imports) {
      if (edge.kind !== 'dynamic-import' && inputs[edge.path]) queue.push(edge.path)
    }
  }
  return seen
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
})
