import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { baseConfigSchema, ConfigError, field, loadConfig, parseConfig } from '../../core/config.js'

// A schema shaped like the parts' sections, to exercise nesting, defaults and field messages.
const schema = baseConfigSchema.extend({
  relay: z
    .strictObject({
      addr: field.address().default('127.0.0.1:8282'),
      decision_logs: z
        .strictObject({
          buffer: z
            .strictObject({
              max_bytes: field.positiveInt().default(1024),
              overflow: z.enum(['backpressure', 'drop_oldest']).default('backpressure'),
            })
            .prefault({}),
        })
        .prefault({}),
      name: z.string().optional(),
    })
    .prefault({}),
})

function problemsOf(run: () => unknown): string[] {
  try {
    run()
  } catch (err) {
    if (err instanceof ConfigError) return err.problems
    throw err
  }
  throw new Error('expected a ConfigError')
}

describe('parseConfig', () => {
  it('applies defaults to an empty document', () => {
    const config = parseConfig('', schema)
    expect(config.log.level).toBe('info')
    expect(config.relay.addr).toBe('127.0.0.1:8282')
    expect(config.relay.decision_logs.buffer).toEqual({ max_bytes: 1024, overflow: 'backpressure' })
  })

  it('keeps values that are given', () => {
    const config = parseConfig(
      'relay:\n  decision_logs:\n    buffer:\n      max_bytes: 10\nlog: {level: debug}\n',
      schema,
    )
    expect(config.relay.decision_logs.buffer.max_bytes).toBe(10)
    expect(config.log.level).toBe('debug')
  })

  it('names the key path and the bad value', () => {
    const problems = problemsOf(() =>
      parseConfig('relay:\n  decision_logs:\n    buffer:\n      max_bytes: ten\n', schema),
    )
    expect(problems).toEqual(['relay.decision_logs.buffer.max_bytes: expected a positive integer, got "ten"'])
  })

  it('rejects negative numbers, bad enums and addresses with their keys', () => {
    const problems = problemsOf(() =>
      parseConfig(
        'relay:\n  addr: nowhere\n  decision_logs: {buffer: {max_bytes: -5, overflow: spill}}\nlog: {level: loud}\n',
        schema,
      ),
    )
    expect(problems).toHaveLength(4)
    expect(problems).toContain('relay.addr: expected HOST:PORT, got "nowhere"')
    expect(problems).toContain('relay.decision_logs.buffer.max_bytes: expected a positive integer, got -5')
    expect(problems.find((p) => p.startsWith('relay.decision_logs.buffer.overflow:'))).toContain('"spill"')
    expect(problems.find((p) => p.startsWith('log.level:'))).toContain('"loud"')
  })

  it('reports unknown keys, so typos do not pass silently', () => {
    expect(problemsOf(() => parseConfig('relay:\n  adr: 1.2.3.4:1\n', schema))).toEqual([
      'relay.adr: unknown key',
    ])
  })

  it('reports YAML syntax errors with line and column', () => {
    const [problem] = problemsOf(() => parseConfig('relay:\n  addr: [1, 2\n', schema))
    expect(problem).toMatch(/^line \d+, column \d+: /)
  })

  it('rejects duplicate keys and a document that is not a mapping', () => {
    expect(problemsOf(() => parseConfig('log: {}\nlog: {}\n', schema))[0]).toMatch(/unique|duplicate/i)
    expect(problemsOf(() => parseConfig('- a\n- b\n', schema))).toEqual([
      '(root): expected a mapping of keys',
    ])
  })

  describe('environment substitution', () => {
    it('substitutes ${VAR} inside strings and types a whole-value reference', () => {
      const config = parseConfig(
        'relay:\n  name: "relay-${ZONE}"\n  decision_logs: {buffer: {max_bytes: "${MAX}"}}\n',
        schema,
        { env: { ZONE: 'eu', MAX: '2048' } },
      )
      expect(config.relay.name).toBe('relay-eu')
      expect(config.relay.decision_logs.buffer.max_bytes).toBe(2048)
    })

    it('uses ${VAR:-default} when the variable is unset or empty', () => {
      const config = parseConfig('relay:\n  addr: ${ADDR:-127.0.0.1:9999}\n  name: ${NAME:-x}\n', schema, {
        env: { NAME: '' },
      })
      expect(config.relay.addr).toBe('127.0.0.1:9999')
      expect(config.relay.name).toBe('x')
    })

    it('names an unset variable and where it is used', () => {
      expect(problemsOf(() => parseConfig('relay:\n  name: ${MISSING_ONE}\n', schema, { env: {} }))).toEqual([
        'relay.name: environment variable MISSING_ONE is not set',
      ])
    })

    it('ignores references in comments and cannot inject structure', () => {
      const config = parseConfig('# ${NOT_SET}\nrelay:\n  name: ${EVIL}\n', schema, {
        env: { EVIL: 'a\nlog: {level: trace}' },
      })
      expect(config.relay.name).toBe('a\nlog: {level: trace}')
      expect(config.log.level).toBe('info')
    })
  })
})

describe('loadConfig', () => {
  it('reads a file and names it in errors', () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-config-'))
    const file = join(dir, 'regent.yaml')
    writeFileSync(file, 'log:\n  level: warn\n')
    expect(loadConfig(file, schema).log.level).toBe('warn')
    writeFileSync(file, 'log:\n  level: 3\n')
    expect(() => loadConfig(file, schema)).toThrow(`${file}: invalid configuration`)
    rmSync(dir, { recursive: true, force: true })
  })

  it('explains a missing file', () => {
    expect(problemsOf(() => loadConfig('/nonexistent/regent.yaml', schema))).toEqual([
      'cannot read the file: ENOENT',
    ])
  })

  it('gives defaults with no file', () => {
    expect(loadConfig(undefined, schema).relay.addr).toBe('127.0.0.1:8282')
  })
})
