/** Go-style durations as the CLI's flags take them (`--timeout 5s`, `--benchtime 1m30s`). */

/** Parses Go-style durations (`5s`, `100ms`, `1m30s`) into milliseconds. */
export function parseDuration(text: string): number {
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g
  const unit: Record<string, number> = {
    ns: 1e-6,
    us: 1e-3,
    µs: 1e-3,
    ms: 1,
    s: 1000,
    m: 60_000,
    h: 3_600_000,
  }
  let total = 0
  let consumed = 0
  for (const m of text.matchAll(re)) {
    total += Number(m[1]) * (unit[m[2] as string] ?? 0)
    consumed += m[0].length
  }
  if (consumed !== text.length || consumed === 0) throw new Error(`invalid duration ${JSON.stringify(text)}`)
  return total
}
