import { describe, expect, it } from 'vitest'
import { unifiedDiff } from '../../../../core/rego/format/diff.js'

describe('unifiedDiff', () => {
  it('is empty for equal texts', () => {
    expect(unifiedDiff('a.rego', 'x\n', 'x\n')).toBe('')
  })

  it('shows changed lines with context and hunk headers', () => {
    const before = 'a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n'
    const after = 'a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n'
    expect(unifiedDiff('x.rego', before, after)).toBe(
      [
        'diff a/x.rego b/x.rego',
        '--- a/x.rego',
        '+++ b/x.rego',
        '@@ -1,5 +1,5 @@',
        ' a',
        '-b',
        '+B',
        ' c',
        ' d',
        ' e',
        '@@ -9,4 +9,5 @@',
        ' i',
        ' j',
        ' k',
        '+l',
        ' ',
        '',
      ].join('\n'),
    )
  })
})
