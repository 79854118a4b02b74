/**
 * `regent test` starts without loading what a test run of plain .rego files never uses: the
 * database, Redis and HTTP clients of the built-ins that call out, the bench command's end-to-end
 * server, the bundle reader. Checked in a fresh process (module caches are per process), on the
 * CommonJS packages Node records in `require.cache`.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../../support/logs-child.js'

const LAZY = [
  'better-sqlite3',
  'pg',
  'mysql2',
  'ioredis',
  'undici',
  'yaml',
  'pino',
  'prom-client',
  'tar-stream',
]

/** Names of the packages in require.cache after importing `module` in a new process. */
function packagesLoadedBy(module: string): string[] {
  const script = `
    import { createRequire } from 'node:module'
    await import(${JSON.stringify(pathToFileURL(join(ROOT, module)).href)})
    const names = Object.keys(createRequire(import.meta.url).cache)
      .filter((k) => k.includes('/node_modules/'))
      .map((k) => k.split('/node_modules/').at(-1).split('/')[0])
    console.log(JSON.stringify([...new Set(names)]))`
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 30_000,
  })
  if (child.status !== 0) throw new Error(child.stderr)
  return JSON.parse(child.stdout.trim().split('\n').at(-1) as string) as string[]
}

describe('regent test cold start', () => {
  it('loads no client library of the calling built-ins, nor bench or bundle modules', () => {
    const loaded = packagesLoadedBy('cli/commands/test.ts')
    expect(loaded).toContain('commander') // the probe does see CommonJS packages
    expect(loaded.filter((name) => LAZY.includes(name))).toEqual([])
  }, 40_000)

  it('the built-in registry itself loads none of them either', () => {
    const loaded = packagesLoadedBy('core/rego/builtins/registry.ts')
    expect(loaded.filter((name) => LAZY.includes(name))).toEqual([])
  }, 40_000)
})
