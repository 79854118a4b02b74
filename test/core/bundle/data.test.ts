import { describe, expect, it } from 'vitest'
import { mergeDataFiles, parseYamlData } from '../../../core/bundle/data.js'

const file = (path: string, text: string) => ({ path, raw: new TextEncoder().encode(text) })

describe('mergeDataFiles', () => {
  it('places each file at its directory and merges objects', () => {
    const data = mergeDataFiles([
      file('data.json', '{"a": {"x": 1}, "top": true}'),
      file('a/data.json', '{"y": 2}'),
      file('a/b/c/data.yaml', 'z: [1, 2]\n'),
      file('list/data.json', '[1, 2, 3]'),
    ])
    expect(data).toEqual({ a: { x: 1, y: 2, b: { c: { z: [1, 2] } } }, top: true, list: [1, 2, 3] })
  })

  it('names both files when they set the same value', () => {
    expect(() =>
      mergeDataFiles([file('data.json', '{"a": {"b": 1}}'), file('a/b/data.json', '{"c": 1}')]),
    ).toThrow(/a\/b\/data\.json conflicts with data\.json at data\.a\.b/)
  })

  it('refuses a non-object at the root and bad JSON, naming the file', () => {
    expect(() => mergeDataFiles([file('data.json', '[1]')])).toThrow(
      /data\.json at the bundle root must hold a JSON object/,
    )
    expect(() => mergeDataFiles([file('x/data.json', '{"a": ')])).toThrow(/x\/data\.json is not valid JSON/)
    expect(() => mergeDataFiles([file('x/data.yaml', 'a: [1, 2\n')])).toThrow(
      /x\/data\.yaml is not valid YAML/,
    )
  })

  it('keeps __proto__ as an ordinary key', () => {
    const data = mergeDataFiles([
      file('data.json', '{"__proto__": {"polluted": true}}'),
      file('data.yaml', 'k: 1\n'),
    ])
    expect(Object.keys(data)).toEqual(['__proto__', 'k'])
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined()
  })
})

describe('parseYamlData', () => {
  it('reads YAML 1.1 as Go does: yes/no booleans, timestamps stay strings', () => {
    expect(parseYamlData('a: yes\nb: off\nc: 2001-12-14\nd: 0x10\n', 'x')).toEqual({
      a: true,
      b: false,
      c: '2001-12-14',
      d: 16,
    })
  })

  it('refuses an alias inside the node it names, saying where', () => {
    expect(() => parseYamlData('a:\n  b: &x [*x]\n', 'x/data.yaml')).toThrow(
      'x/data.yaml is not valid YAML: the alias at a.b.0 refers to a node that contains it',
    )
  })

  it('refuses alias bombs', () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    for (let i = 1; i < 10; i++)
      lines.push(
        `${'b'.repeat(i)}: &b${i} [${Array(9)
          .fill(i === 1 ? '*a' : `*b${i - 1}`)
          .join(',')}]`,
      )
    expect(() => parseYamlData(lines.join('\n'), 'data file bomb/data.yaml')).toThrow(/bomb\/data\.yaml/)
  })
})
