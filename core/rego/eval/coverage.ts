/**
 * Test coverage (`regent test -c`), as OPA's `cover` package computes it: a line is covered when
 * an expression on it was evaluated or a rule whose head is on it succeeded; every other line
 * holding a rule head or an expression of the original modules is not covered.
 */
import type { Location, Module, Rule } from '../syntax/ast.js'
import type { Frame } from './bindings.js'
import type { Evaluator, Iter } from './evaluator.js'
import type { PExpr, PRule } from './ir.js'
import type { Tracer } from './trace.js'

/** Rows `start`..`end` of a file. */
export interface LineRange {
  start: { row: number }
  end: { row: number }
}

/** Coverage of one file. */
export interface FileCoverage {
  covered: LineRange[]
  notCovered: LineRange[]
  coveredLines: number
  notCoveredLines: number
  coverage: number
}

/** Coverage of a test run. */
export interface CoverageReport {
  files: Map<string, FileCoverage>
  coveredLines: number
  notCoveredLines: number
  coverage: number
}

/** Records covered locations while tests run. */
export class CoverageTracer implements Tracer {
  readonly #covered = new Map<string, Set<number>>()

  #mark(loc: Location | undefined): void {
    if (!loc?.file) return
    let rows = this.#covered.get(loc.file)
    if (!rows) {
      rows = new Set()
      this.#covered.set(loc.file, rows)
    }
    rows.add(loc.row)
  }

  expr(_e: Evaluator, expr: PExpr, _frame: Frame, iter: Iter, run: (iter: Iter) => boolean): boolean {
    this.#mark(expr.src.location)
    return run(iter)
  }

  note(): void {}

  ruleExit(rule: PRule): void {
    this.#mark(rule.src.rule.head.location ?? rule.src.rule.location)
  }

  /** The report over the original (parsed, uncompiled) modules. */
  report(modules: ReadonlyMap<string, Module>): CoverageReport {
    const files = new Map<string, FileCoverage>()
    let covered = 0
    let notCovered = 0
    for (const [file, module] of [...modules].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const all = new Set<number>()
      const visitRule = (r: Rule): void => {
        if (r.head.location) all.add(r.head.location.row)
        walkExprRows(r.body, all)
        if (r.else) visitRule(r.else)
      }
      for (const r of module.rules) visitRule(r)
      const hit = this.#covered.get(file) ?? new Set<number>()
      const cov = [...all].filter((row) => hit.has(row)).sort((a, b) => a - b)
      const miss = [...all].filter((row) => !hit.has(row)).sort((a, b) => a - b)
      covered += cov.length
      notCovered += miss.length
      files.set(file, {
        covered: ranges(cov),
        notCovered: ranges(miss),
        coveredLines: cov.length,
        notCoveredLines: miss.length,
        coverage: percent(cov.length, miss.length),
      })
    }
    return {
      files,
      coveredLines: covered,
      notCoveredLines: notCovered,
      coverage: percent(covered, notCovered),
    }
  }
}

function walkExprRows(body: Rule['body'], rows: Set<number>): void {
  for (const e of body) {
    if (e.location) rows.add(e.location.row)
    const t = e.terms
    if (!Array.isArray(t) && (t.type === 'every' || t.type === 'not')) walkExprRows(t.body, rows)
    if (!Array.isArray(t) && (t.type === 'and' || t.type === 'or')) {
      walkExprRows(t.lhs, rows)
      walkExprRows(t.rhs, rows)
    }
  }
}

function ranges(rows: number[]): LineRange[] {
  const out: LineRange[] = []
  for (const r of rows) {
    const last = out[out.length - 1]
    if (last && last.end.row === r - 1) last.end.row = r
    else out.push({ start: { row: r }, end: { row: r } })
  }
  return out
}

function percent(covered: number, notCovered: number): number {
  const total = covered + notCovered
  if (total === 0) return 0
  return Math.round((covered / total) * 10000) / 100
}
