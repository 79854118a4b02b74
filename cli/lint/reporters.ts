/**
 * The report formats of `regent lint -f`: `pretty` (one block per violation, as Regal prints it),
 * `compact` (one line each), `json` (Regal's report object), `github` (workflow commands that
 * annotate a pull request) and `sarif` (SARIF 2.1.0 for code-scanning tools).
 */
import type { LintReport, Violation } from '../../core/lint/types.js'
import { REGENT_VERSION } from '../version-info.js'

export const REPORT_FORMATS = ['pretty', 'compact', 'json', 'github', 'sarif'] as const
export type ReportFormat = (typeof REPORT_FORMATS)[number]

/** Renders `report` in `format`; `color` adds ANSI colours to `pretty` and `compact`. */
export function renderReport(report: LintReport, format: ReportFormat, color: boolean): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(report, null, 2)}\n`
    case 'github':
      return github(report)
    case 'sarif':
      return `${JSON.stringify(sarif(report), null, 2)}\n`
    case 'compact':
      return compact(report, color)
    default:
      return pretty(report, color)
  }
}

const paint = (on: boolean, code: number, text: string) => (on ? `\u001b[${code}m${text}\u001b[0m` : text)
const levelColour = (v: Violation) => (v.level === 'error' ? 31 : 33)

function where(v: Violation): string {
  return `${v.location.file}:${v.location.row}:${v.location.col}`
}

function pretty(report: LintReport, color: boolean): string {
  const blocks = report.violations.map((v) => {
    const lines = [
      `Rule:         \t${paint(color, levelColour(v), v.title)}`,
      `Description:  \t${v.description}`,
      `Category:     \t${v.category}`,
      `Location:     \t${paint(color, 36, where(v))}`,
    ]
    if (v.location.text !== undefined) lines.push(`Text:         \t${v.location.text.trim()}`)
    const doc = v.related_resources?.[0]?.ref
    if (doc) lines.push(`Documentation:\t${doc}`)
    return lines.join('\n')
  })
  return `${[...blocks, summaryLine(report)].join('\n\n')}\n${metricsText(report)}`
}

function compact(report: LintReport, color: boolean): string {
  const lines = report.violations.map(
    (v) =>
      `${where(v)}: ${paint(color, levelColour(v), v.level)}: ${v.description} (${v.category}/${v.title})`,
  )
  return `${[...lines, '', summaryLine(report)].join('\n')}\n${metricsText(report)}`
}

/** "3 files linted. 2 violations found in 1 file." as Regal words it. */
export function summaryLine(report: LintReport): string {
  const n = report.summary.files_scanned
  const files = `${n} file${n === 1 ? '' : 's'} linted.`
  const count = report.violations.length
  if (count === 0) return `${files} No violations found.`
  const withViolations = new Set(report.violations.map((v) => v.location.file)).size
  const found = `${count} violation${count === 1 ? '' : 's'} found`
  return n > 1
    ? `${files} ${found} in ${withViolations} file${withViolations === 1 ? '' : 's'}.`
    : `${files} ${found}.`
}

function metricsText(report: LintReport): string {
  if (!report.metrics) return ''
  const rows = Object.entries(report.metrics).sort((a, b) => b[1] - a[1])
  return `\nMetrics:\n${rows.map(([k, ns]) => `  ${k}\t${(ns / 1e6).toFixed(3)} ms`).join('\n')}\n`
}

// GitHub workflow commands: `%`, CR and LF must be escaped in messages, also `:` and `,` in properties.
const escapeData = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
const escapeProperty = (s: string) => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C')

function github(report: LintReport): string {
  const lines = report.violations.map((v) => {
    const kind = v.level === 'error' ? 'error' : 'warning'
    const props = `file=${escapeProperty(v.location.file)},line=${v.location.row},col=${v.location.col},title=${escapeProperty(`${v.category}/${v.title}`)}`
    const doc = v.related_resources?.[0]?.ref
    return `::${kind} ${props}::${escapeData(`${v.description}${doc ? `. To learn more, see: ${doc}` : ''}`)}`
  })
  return `${[...lines, summaryLine(report)].join('\n')}\n`
}

function sarif(report: LintReport): unknown {
  const ruleIds: string[] = []
  const rules: unknown[] = []
  for (const v of report.violations) {
    const id = `${v.category}/${v.title}`
    if (ruleIds.includes(id)) continue
    ruleIds.push(id)
    rules.push({
      id,
      name: v.title,
      shortDescription: { text: v.description },
      helpUri: v.related_resources?.[0]?.ref,
      properties: { category: v.category },
    })
  }
  return {
    version: '2.1.0',
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    runs: [
      {
        tool: { driver: { name: 'regent', version: REGENT_VERSION, rules } },
        results: report.violations.map((v) => ({
          ruleId: `${v.category}/${v.title}`,
          ruleIndex: ruleIds.indexOf(`${v.category}/${v.title}`),
          level: v.level === 'error' ? 'error' : 'warning',
          message: { text: v.description },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: v.location.file },
                region: { startLine: v.location.row, startColumn: v.location.col },
              },
            },
          ],
        })),
      },
    ],
  }
}
