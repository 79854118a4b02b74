import { describe, expect, it } from 'vitest'
import { readYaml, YamlError } from '../../core/yaml.js'

function failure(text: string, options: Parameters<typeof readYaml>[1] = {}): YamlError {
  try {
    readYaml(text, options)
  } catch (err) {
    if (err instanceof YamlError) return err
    throw err
  }
  throw new Error('expected a YamlError')
}

function keys(n: number): string {
  const lines: string[] = []
  for (let i = 0; i < n; i++) lines.push(`k${i}: ${i}`)
  return `${lines.join('\n')}\n`
}

describe('readYaml: duplicate keys', () => {
  it('refuses a repeated key, naming it with its line and column', () => {
    const err = failure('a: 1\nb:\n  c: 2\n  c: 3\n')
    expect(err.kind).toBe('duplicate_key')
    expect(err.reason).toBe('map keys must be unique: c')
    expect([err.line, err.column]).toEqual([4, 3])
  })

  it('finds duplicates in flow maps, in maps inside sequences and inside keys of their own', () => {
    expect(failure('{a: 1, a: 2}').kind).toBe('duplicate_key')
    expect(failure('- x: 1\n- y: 1\n  y: 2\n').line).toBe(3)
    expect(failure('? {a: 1, a: 2}\n: v\n').kind).toBe('duplicate_key')
    expect(failure('"q": 1\nq: 2\n').kind).toBe('duplicate_key')
  })

  it('accepts the same key in different maps, and repeated merge keys in YAML 1.1', () => {
    expect(readYaml('a: {x: 1}\nb: {x: 2}\n')).toEqual({ a: { x: 1 }, b: { x: 2 } })
    const merged = readYaml('base: &b {x: 1}\nmore: &m {z: 2}\nc:\n  <<: *b\n  <<: *m\n', { version: '1.1' })
    expect(merged).toEqual({ base: { x: 1 }, more: { z: 2 }, c: { x: 1, z: 2 } })
  })

  it('reads a map of 200,000 keys (a quadratic key check took minutes for this)', () => {
    const value = readYaml(keys(200_000), { maxNodes: Number.POSITIVE_INFINITY }) as Record<string, number>
    expect(Object.keys(value)).toHaveLength(200_000)
    expect(value.k199999).toBe(199_999)
    // A duplicate at the very end of a large map is still found.
    expect(failure(`${keys(200_000)}k0: again\n`, { maxNodes: Number.POSITIVE_INFINITY }).line).toBe(200_001)
  }, 120_000)
})

describe('readYaml: node bound', () => {
  it('counts a key and its value as two nodes, collections and sequence items as one', () => {
    expect(readYaml(keys(5), { maxNodes: 10 })).toHaveProperty('k4', 4)
    expect(failure(keys(6), { maxNodes: 10 }).kind).toBe('too_many_nodes')
    expect(readYaml('[1, 2, 3]', { maxNodes: 4 })).toEqual([1, 2, 3])
    expect(failure('[1, 2, 3]', { maxNodes: 3 }).kind).toBe('too_many_nodes')
    // Empty items count: a list of a million dashes has no scalar in it.
    expect(failure('-\n'.repeat(11), { maxNodes: 10 }).kind).toBe('too_many_nodes')
    // Quoted scalars and aliases count (each item here is one node), before the alias is looked up.
    expect(failure('- "a"\n- \'b\'\n- *c\n', { maxNodes: 3 }).kind).toBe('too_many_nodes')
  })

  it('refuses while reading, saying where the bound was crossed', () => {
    const err = failure(keys(1000), { maxNodes: 100 })
    expect(err.reason).toBe('the document has more than 100 nodes (keys, values and items)')
    expect(err.line).toBe(51)
  })

  it('applies a default bound', () => {
    expect(failure(keys(100_001)).kind).toBe('too_many_nodes')
  }, 60_000)
})

describe('readYaml: other refusals', () => {
  it('names line and column of a syntax error', () => {
    const err = failure('a: [1, 2\nb: c')
    expect(err.kind).toBe('syntax')
    expect(err.line).toBeGreaterThan(0)
    expect(err.message).toMatch(/ at line \d+, column \d+$/)
  })

  it('refuses several documents, an alias inside its own node and alias bombs', () => {
    expect(failure('a: 1\n---\nb: 2\n').kind).toBe('syntax')
    expect(failure('a: &x [*x]').kind).toBe('self_reference')
    const laughs = ['a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]']
    for (let i = 1; i < 10; i++) {
      const [name, prev] = [String.fromCharCode(97 + i), String.fromCharCode(96 + i)]
      laughs.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(', ')}]`)
    }
    expect(failure(laughs.join('\n')).kind).toBe('alias')
  })

  it('reads YAML 1.1 scalars, exact integers, timestamps as text and empty texts', () => {
    expect(
      readYaml('a: yes\nb: 12345678901234567890\nc: 2001-12-14\n', {
        version: '1.1',
        intAsBigInt: true,
        timestampsAsStrings: true,
      }),
    ).toEqual({ a: true, b: 12345678901234567890n, c: '2001-12-14' })
    expect(readYaml('')).toBeNull()
  })

  it('refuses nesting past its depth bound with an error, not a stack overflow', () => {
    expect(readYaml(`${'['.repeat(500)}${']'.repeat(500)}`)).toBeInstanceOf(Array)
    for (const text of ['['.repeat(100_000), '{a: '.repeat(50_000), '- '.repeat(50_000)]) {
      const err = failure(text)
      expect(err.kind).toBe('syntax')
      expect(err.reason).toBe('the document is nested too deeply')
    }
  })

  it('refuses an alias to no anchor, and places an error at the end of the text on its last line', () => {
    expect(failure('a: *nowhere\n').kind).toBe('alias')
    const err = failure('[1,2,3')
    expect([err.line, err.column]).toEqual([1, 7])
  })

  it('follows a %YAML directive over the version asked for', () => {
    expect(readYaml('%YAML 1.1\n---\na: yes\n')).toEqual({ a: true })
    expect(readYaml('%YAML 1.2\n---\na: yes\n', { version: '1.1' })).toEqual({ a: 'yes' })
  })
})
