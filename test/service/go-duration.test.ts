import { describe, expect, it } from 'vitest'
import { parseGoDuration } from '../../service/go-duration.js'

describe('parseGoDuration', () => {
  it.each([
    ['0', 0],
    ['300ms', 300],
    ['1.5h', 5_400_000],
    ['2h45m', 9_900_000],
    ['1m30s', 90_000],
    ['-1s', -1000],
    ['1000us', 1],
    ['720h', 2_592_000_000],
    ['.5s', 500],
  ])('%s is %d ms', (text, ms) => {
    expect(parseGoDuration(text)).toBe(ms)
  })

  it.each(['', '10', 'h', '1d', '1h 30m', '1.2.3s', 'abc', '5sm'])('refuses %j', (text) => {
    expect(parseGoDuration(text)).toBeUndefined()
  })
})
