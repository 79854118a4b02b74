import { describe, expect, it } from 'vitest'
import { goFormatFloatG } from '../../../../core/rego/builtins/go-yaml.js'
import { call } from './helpers.js'

// yaml.marshal goes through sigs.k8s.io/yaml's JSONToYAML, that is go-yaml v2 (YAML 1.1, libyaml's
// emitter); the expected texts are what that writes.
const marshal = (x: unknown) => call('yaml.marshal', x) as string

describe('yaml.marshal as go-yaml v2 writes it', () => {
  it('double-quotes strings YAML 1.1 reads as booleans, nulls, numbers or timestamps', () => {
    expect(marshal(['yes', 'on', 'n', 'Off', '~', '1:20', '12_000', '0b101', '2001-12-14', '.5'])).toBe(
      '- "yes"\n- "on"\n- "n"\n- "Off"\n- "~"\n- "1:20"\n- "12_000"\n- "0b101"\n- "2001-12-14"\n- ".5"\n',
    )
    // Not a date, not a number: plain.
    expect(marshal(['2023-02-30', 'one', 'nope', '1e400'])).toBe('- 2023-02-30\n- one\n- nope\n- 1e400\n')
  })

  it('single-quotes what only its characters keep from being plain, escapes what libyaml will not print', () => {
    expect(marshal({ a: '- x', b: 'k: v', c: 'end ', d: ' start', e: "it's", f: 'tab\there', g: '😀' })).toBe(
      `a: '- x'\nb: 'k: v'\nc: 'end '\nd: ' start'\ne: it's\nf: "tab\\there"\ng: "\\U0001F600"\n`,
    )
  })

  it('orders keys as go-yaml sorts them: digit runs as numbers, non-letters before letters', () => {
    expect(marshal({ item10: 1, item2: 2, aB: 3, a_b: 4, y: 5 })).toBe(
      'a_b: 4\naB: 3\nitem2: 2\nitem10: 1\n"y": 5\n',
    )
  })

  it('writes numbers as Go writes an int64, a uint64 or a float64', () => {
    expect(
      marshal(['json:[1.5e-7, 1e6, 12345678901234567890, 123456789.123, 100000000000000000000, 7]']),
    ).toBe('- - 1.5e-07\n  - 1e+06\n  - 12345678901234567890\n  - 1.23456789123e+08\n  - 1e+20\n  - 7\n')
    expect([0.1, 100.5, 1e5, 0.0001, 0.00001, -2.5e-10].map(goFormatFloatG)).toEqual([
      '0.1',
      '100.5',
      '100000',
      '0.0001',
      '1e-05',
      '-2.5e-10',
    ])
  })

  it('writes line breaks as literal blocks and folds long lines past column 80', () => {
    expect(marshal({ a: 'x\n\ny', b: 'x\n', c: [] })).toBe('a: |-\n  x\n\n  y\nb: |\n  x\nc: []\n')
    const words = Array.from({ length: 20 }, (_, i) => `word${i}`).join(' ')
    expect(marshal({ k: words })).toBe(
      'k: word0 word1 word2 word3 word4 word5 word6 word7 word8 word9 word10 word11 word12\n  word13 word14 word15 word16 word17 word18 word19\n',
    )
  })
})
