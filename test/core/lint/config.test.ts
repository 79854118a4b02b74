import { describe, expect, it } from 'vitest'
import { LintConfigError, parseConfig, resolveRule } from '../../../core/lint/config.js'
import { isIgnored } from '../../../core/lint/ignore-files.js'

const rule = { name: 'line-length', category: 'style' }

describe('lint config', () => {
  it('reads levels, options and ignore patterns at every depth', () => {
    const config = parseConfig(`
rules:
  default:
    level: warning
  style:
    default:
      level: error
    line-length:
      max-line-length: 80
      ignore:
        files: ["*_test.rego"]
  bugs:
    constant-condition:
      level: ignore
ignore:
  files: [vendor/]
`)
    expect(resolveRule(rule, config)).toEqual({
      level: 'error',
      options: { 'max-line-length': 80 },
      ignoreFiles: ['*_test.rego'],
    })
    expect(resolveRule({ name: 'constant-condition', category: 'bugs' }, config).level).toBe('ignore')
    expect(resolveRule({ name: 'todo-test', category: 'testing' }, config).level).toBe('warning')
    expect(config.ignoreFiles).toEqual(['vendor/'])
  })

  it('lets flags override the file: all, then category, then rule', () => {
    const config = parseConfig('rules:\n  style:\n    line-length:\n      level: ignore\n')
    expect(resolveRule(rule, config).level).toBe('ignore')
    expect(resolveRule(rule, config, { enableAll: true }).level).toBe('error')
    expect(resolveRule(rule, config, { enableCategory: ['style'] }).level).toBe('error')
    expect(resolveRule(rule, config, { enableAll: true, disableCategory: ['style'] }).level).toBe('ignore')
    expect(resolveRule(rule, config, { disableAll: true, enable: ['line-length'] }).level).toBe('error')
    expect(resolveRule(rule, parseConfig(''), { disable: ['line-length'] }).level).toBe('ignore')
  })

  it('names the key that is wrong', () => {
    expect(() => parseConfig('rules:\n  style:\n    line-length:\n      level: loud\n', 'cfg.yaml')).toThrow(
      new LintConfigError(
        'cfg.yaml: rules.style.line-length.level: expected error, warning or ignore, got loud',
      ),
    )
    expect(() => parseConfig('ignore:\n  files: 3\n', 'cfg.yaml')).toThrow(/ignore.files: expected a list/)
    expect(() => parseConfig('- a\n', 'cfg.yaml')).toThrow(/expected a mapping at the top level/)
  })

  it('matches ignore patterns against names, trailing paths and directories', () => {
    expect(isIgnored('policy/a_test.rego', ['*_test.rego'])).toBe(true)
    expect(isIgnored('policy/a.rego', ['*_test.rego'])).toBe(false)
    expect(isIgnored('vendor/x/y.rego', ['vendor/'])).toBe(true)
    expect(isIgnored('src/vendor/x/y.rego', ['src/**/y.rego'])).toBe(true)
    expect(isIgnored('src/a.rego', ['src/b.rego'])).toBe(false)
  })
})
