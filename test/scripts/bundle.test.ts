/**
 * `npm run build`'s bundle (scripts/bundle.ts) works as installed: laid out as the package ships it
 * (package.json, bin/, dist/; no sources, so bin/regent.js runs dist/cli/main.js), it prints the
 * version from package.json, runs a test file, starts worker threads from the bundle's own files,
 * every worker the sources start is an entry of the bundle, and every chunk loads.
 */
import { spawnSync } from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundleRegent, INLINE, WORKERS } from '../../scripts/bundle.js'
import { ROOT } from '../support/logs-child.js'

const SOURCE_FOLDERS = ['core', 'compile', 'plugins', 'relay', 'agent', 'store', 'service', 'cli']

/** Every `<name>` of `startModuleWorker(import.meta.url, '<name>'…)` in the sources. */
function startedWorkers(): string[] {
  const names = new Set<string>()
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.ts')) {
        const text = readFileSync(path, 'utf8')
        for (const m of text.matchAll(/startModuleWorker\(import\.meta\.url,\s*'([^']+)'/g)) names.add(m[1]!)
      }
    }
  }
  for (const folder of SOURCE_FOLDERS) walk(join(ROOT, folder))
  return [...names].sort()
}

function regent(app: string, args: string[]) {
  return spawnSync(process.execPath, [join(app, 'bin', 'regent.js'), ...args], {
    cwd: app,
    encoding: 'utf8',
    timeout: 60_000,
  })
}

/** The packages named and, transitively, their dependencies (from node_modules' package.json files). */
function withDependencies(names: Iterable<string>): Set<string> {
  const seen = new Set<string>()
  const queue = [...names]
  while (queue.length > 0) {
    const name = queue.pop()!
    if (seen.has(name)) continue
    seen.add(name)
    const pkg = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>
    }
    queue.push(...Object.keys(pkg.dependencies ?? {}))
  }
  return seen
}

describe('the bundled build', () => {
  let root: string
  let app: string

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'regent-bundle-'))
    app = join(root, 'app')
    mkdirSync(join(app, 'bin'), { recursive: true })
    copyFileSync(join(ROOT, 'package.json'), join(app, 'package.json'))
    for (const file of readdirSync(join(ROOT, 'bin')))
      copyFileSync(join(ROOT, 'bin', file), join(app, 'bin', file))
    symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(app, 'node_modules'))
    // An earlier build's leftovers: a module outside the bundle goes, the console stays.
    mkdirSync(join(app, 'dist', 'core'), { recursive: true })
    writeFileSync(join(app, 'dist', 'core', 'stale.js'), '')
    mkdirSync(join(app, 'dist', 'console'), { recursive: true })
    writeFileSync(join(app, 'dist', 'console', 'index.html'), '')
    await bundleRegent(join(app, 'dist'))
  }, 120_000)

  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true })
  })

  it('lists every worker the sources start, and writes each beside main.js', () => {
    const started = startedWorkers()
    expect(started.length).toBeGreaterThan(0)
    expect(WORKERS.map((file) => basename(file, '.ts')).sort()).toEqual(started)
    for (const name of started) expect(existsSync(join(app, 'dist', 'cli', `${name}.js`))).toBe(true)
  })

  it('bundles no package but INLINE and their own dependencies (the others load from node_modules)', () => {
    const dir = join(app, 'dist', 'cli')
    const packages = new Set<string>()
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.js.map'))) {
      const map = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { sources: string[] }
      for (const source of map.sources) {
        const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source)
        if (m) packages.add(m[1]!)
      }
    }
    for (const name of INLINE) expect(packages).toContain(name)
    const allowed = withDependencies(INLINE)
    expect([...packages].filter((name) => !allowed.has(name))).toEqual([])
  })

  it('replaces an earlier build but keeps the console', () => {
    expect(readdirSync(join(app, 'dist')).sort()).toEqual(['cli', 'console'])
    expect(existsSync(join(app, 'dist', 'console', 'index.html'))).toBe(true)
  })

  it('every file of the bundle loads (the bundled packages find `require`, no name clashes with it)', () => {
    const dir = join(app, 'dist', 'cli')
    const files = readdirSync(dir).filter(
      (f) => f.endsWith('.js') && f !== 'main.js' && !f.endsWith('-worker.js'),
    )
    expect(files.length).toBeGreaterThan(10)
    const script = `for (const f of ${JSON.stringify(files)}) await import(${JSON.stringify(`${pathToFileURL(dir).href}/`)} + f)`
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(run.stderr).toBe('')
    expect(run.status).toBe(0)
  })

  it('runs through bin/regent.js: version from package.json, a test file', () => {
    const version = regent(app, ['version'])
    expect(version.status).toBe(0)
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
    expect(version.stdout).toContain(`Version: ${pkg.version}`)

    writeFileSync(
      join(root, 'one_test.rego'),
      'package one\nallow if input.x == 1\ntest_allow if allow with input as {"x": 1}\n',
    )
    const test = regent(app, ['test', join(root, 'one_test.rego')])
    expect(test.stderr).toBe('')
    expect(test.stdout).toContain('PASS: 1/1')
  })

  it('starts worker threads from the bundle (regent test -p 2 of a suite large enough to share out)', () => {
    const tests = Array.from({ length: 80 }, (_, i) => `test_t${i} if { ${i} >= 0 }`)
    writeFileSync(join(root, 'many_test.rego'), `package many\n${tests.join('\n')}\n`)
    const run = regent(app, ['test', '-p', '2', join(root, 'many_test.rego')])
    expect(run.stderr).toBe('')
    expect(run.stdout).toContain('PASS: 80/80')
    // Without the worker's file the same run fails: the run above did start one.
    rmSync(join(app, 'dist', 'cli', 'test-worker.js'))
    const broken = regent(app, ['test', '-p', '2', join(root, 'many_test.rego')])
    expect(broken.status).not.toBe(0)
    expect(broken.stderr).toContain('test-worker.js')
  })
})
