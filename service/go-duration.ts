/**
 * Go-style durations (`time.ParseDuration`): a sequence of decimal numbers, each with an
 * optional fraction and a unit, such as `300ms`, `1.5h` or `2h45m`. Token TTLs use them.
 */

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
}

const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y

/**
 * Milliseconds in `text`, or undefined when it is not a Go duration.
 * @example parseGoDuration('1h30m') // 5_400_000
 */
export function parseGoDuration(text: string): number | undefined {
  let rest = text.trim()
  let sign = 1
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest.startsWith('-')) sign = -1
    rest = rest.slice(1)
  }
  if (rest === '0') return 0
  if (rest === '') return undefined
  let total = 0
  PART.lastIndex = 0
  while (PART.lastIndex < rest.length) {
    const start = PART.lastIndex
    const match = PART.exec(rest)
    if (!match || match.index !== start) return undefined
    total += Number(match[1]) * UNIT_MS[match[2]!]!
  }
  return sign * total
}
