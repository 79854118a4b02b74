/**
 * Benchmark results as `opa bench` prints them: a table (pretty), Go's `BenchmarkResult` JSON, and
 * Go's benchmark text format (gobench).
 */
import { type Doc, renderJson } from '../presentation.js'
import type { BenchmarkResult } from './measure.js'

/** One result in `format`: OPA's table, Go's BenchmarkResult JSON, or a gobench line. */
export function renderBenchmark(r: BenchmarkResult, format: string, benchmem: boolean): string {
  switch (format) {
    case 'json':
      return `${renderJson(benchmarkDoc(r))}\n`
    case 'gobench':
      return `BenchmarkOPAEval\t${benchmarkLine(r, benchmem)}\n`
    default: {
      const rows: Array<[string, string]> = [
        ['samples', String(r.N)],
        ['ns/op', formatFloat(r.T / r.N)],
      ]
      if (benchmem) {
        rows.push(['B/op', r.bytesPerOp === undefined ? 'n/a' : String(r.bytesPerOp)])
        rows.push(['allocs/op', 'n/a'])
      }
      for (const k of [...r.extra.keys()].sort(compareGo))
        rows.push([k, formatFloat(r.extra.get(k) as number)])
      return keyValueTable(rows)
    }
  }
}

/** Go's `BenchmarkResult` as JSON (`MemAllocs` null: Node.js cannot count allocations). */
export function benchmarkDoc(r: BenchmarkResult): Doc {
  const extra: { [key: string]: Doc } = {}
  for (const k of [...r.extra.keys()].sort(compareGo)) extra[k] = r.extra.get(k) as number
  return {
    N: r.N,
    T: r.T,
    Bytes: 0,
    MemAllocs: null,
    MemBytes: r.bytesPerOp === undefined ? null : r.bytesPerOp * r.N,
    Extra: extra,
  }
}

/** `BenchmarkResult.String()` (plus `B/op` with benchmem): `N  ns/op  extra metrics...`. */
export function benchmarkLine(r: BenchmarkResult, benchmem: boolean): string {
  let out = String(r.N).padStart(8)
  const ns = r.T / r.N
  if (ns !== 0) out += `\t${goPrettyPrint(ns, 'ns/op')}`
  for (const k of [...r.extra.keys()].sort(compareGo))
    out += `\t${goPrettyPrint(r.extra.get(k) as number, k)}`
  if (benchmem && r.bytesPerOp !== undefined) out += `\t${String(r.bytesPerOp).padStart(8)} B/op`
  return out
}

/** Go's `testing` prettyPrint: ten places before the point, four significant figures below 1000. */
function goPrettyPrint(x: number, unit: string): string {
  const y = Math.abs(x)
  const [width, digits] =
    y === 0 || y >= 999.95
      ? [10, 0]
      : y >= 99.995
        ? [12, 1]
        : y >= 9.9995
          ? [13, 2]
          : y >= 0.99995
            ? [14, 3]
            : y >= 0.099995
              ? [15, 4]
              : y >= 0.0099995
                ? [16, 5]
                : y >= 0.00099995
                  ? [17, 6]
                  : [18, 7]
  return `${x.toFixed(digits).padStart(width)} ${unit}`
}

/** OPA's `prettyFormatFloat` for the bench table (three significant figures below 100). */
function formatFloat(x: number): string {
  const y = Math.abs(x)
  const [width, digits] =
    y === 0 || y >= 99.95
      ? [10, 0]
      : y >= 9.995
        ? [12, 1]
        : y >= 0.9995
          ? [13, 2]
          : y >= 0.09995
            ? [14, 3]
            : y >= 0.009995
              ? [15, 4]
              : y >= 0.0009995
                ? [16, 5]
                : [17, 6]
  return x.toFixed(digits).padStart(width)
}

/** Go's string order (bytes), which sorts `99%` before `99.9%`. */
function compareGo(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b))
}

/** A two-column bordered table without header, values right-aligned (OPA's bench table). */
function keyValueTable(rows: Array<[string, string]>): string {
  const w0 = Math.max(...rows.map((r) => r[0].length))
  const w1 = Math.max(...rows.map((r) => r[1].length))
  const line = `+${'-'.repeat(w0 + 2)}+${'-'.repeat(w1 + 2)}+`
  const body = rows.map(([k, v]) => `| ${k.padEnd(w0)} | ${v.padStart(w1)} |`)
  return `${[line, ...body, line].join('\n')}\n`
}
