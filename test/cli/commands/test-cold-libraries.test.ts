/**
 * re2js and js-yaml (a third of the JavaScript `regent test` used to load) load on first use,
 * not at start: a one-test run compiles no regular expression and reads no YAML. Checked in a
 * fresh process, on the ES modules a load hook sees (an `import … from 're2js'` creeping back in)
 * and on the CommonJS modules in `require.cache` (Node 20's hooks do not see `require`, which is
 * how the libraries now load). The last case uses both libraries and
 * expects to see them, so the probe itself is shown to work.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT } from '../../support/logs-child.js'

const dir = mkdtempSync(join(tmpdir(), 'regent-cold-libs-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The packages (re2js, js-yaml) loaded, in a new process, by running `body` (an ES module text). */
function librariesLoaded(body: string): string[] {
  const log = join(dir, `loads-${Math.random().toString(36).slice(2)}.txt`)
  const hook = `
    import { appendFileSync } from 'node:fs'
    export async function load(url, context, next) {
      appendFileSync(${JSON.stringify(log)}, url + '\\n')
      return next(url, context)
    }`
  const script = `
    import { createRequire, register } from 'node:module'
    import { appendFileSync, writeFileSync } from 'node:fs'
    writeFileSync(${JSON.stringify(log)}, '')
    register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}))
    ${body}
    const required = Object.keys(createRequire(import.meta.url).cache)
    appendFileSync(${JSON.stringify(log)}, required.join('\\n') + '\\n')`
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 30_000,
  })
  if (child.status !== 0) throw new Error(child.stderr)
  const urls = readFileSync(log, 'utf8').split('\n')
  return ['re2js', 'js-yaml'].filter((name) => urls.some((u) => u.includes(`node_modules/${name}/`)))
}

const url = (module: string) => JSON.stringify(pathToFileURL(join(ROOT, module)).href)

describe('regent test cold start: regular expressions and YAML load on first use', () => {
  it('loading the test command and compiling a policy loads neither', () => {
    const loaded = librariesLoaded(`
      await import(${url('cli/commands/test.ts')})
      const { compilePolicy } = await import(${url('core/rego/eval/policy.ts')})
      const { parseModule } = await import(${url('core/rego/syntax/module-parser.ts')})
      compilePolicy(new Map([['p.rego', parseModule('package p\\nallow if input.x == 1\\n')]]))`)
    expect(loaded).toEqual([])
  }, 40_000)

  it('a regex built-in and a YAML read load them (the probe sees both)', () => {
    const loaded = librariesLoaded(`
      const { compileRegex } = await import(${url('core/rego/builtins/regex-cache.ts')})
      const { readYaml } = await import(${url('core/yaml.ts')})
      if (!compileRegex('a+').matches('aa')) throw new Error('regex did not match')
      if (readYaml('a: 1').a !== 1) throw new Error('yaml read wrong')`)
    expect(loaded).toEqual(['re2js', 'js-yaml'])
  }, 40_000)
})
