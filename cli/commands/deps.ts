/**
 * `regent deps <query>`: the base documents (data from outside, `input`) and the virtual
 * documents (rules) a query depends on, as `opa deps` prints them. The query is parsed, not
 * compiled (refs are written in full, `data.pkg.rule`); the policies given with `-d`/`-b` are
 * compiled and their rules walked from the query (`queryDependencies` in core/rego).
 *
 * JSON is OPA's `{"base": [ref...], "virtual": [ref...]}` with refs in OPA's AST JSON (an empty
 * list is left out, so no dependencies print `{}`); pretty is a table with one column per
 * non-empty list. Errors go to stderr with exit 1, in either format, as `opa deps` does.
 */
import { Command, Option } from 'commander'
import { stringify } from 'lossless-json'
import { loadPolicy } from '../../core/bundle/policy-files.js'
import { refString } from '../../core/rego/compiler/text.js'
import {
  compile,
  type DependencyRef,
  parseQuery,
  queryDependencies,
  RegoErrors,
  type Term,
  toOpaJson,
} from '../../core/rego/index.js'
import { collect } from '../query-options.js'

interface DepsOptions {
  data: string[]
  bundle: string[]
  ignore: string[]
  v0Compatible?: boolean
  format: string
}

/** Builds the `deps` command. */
export function depsCommand(): Command {
  return new Command('deps')
    .description('print the base and virtual documents a query depends on')
    .argument('<query>', 'the query to analyse (refs in full, e.g. data.authz.allow)')
    .option('-d, --data <path>', 'policy files and directories', collect, [])
    .option('-b, --bundle <path>', 'bundle directories or .tar.gz files', collect, [])
    .option('--ignore <glob>', 'file names to skip when loading', collect, [])
    .option('--v0-compatible', 'parse with Rego v0 syntax')
    .addOption(
      new Option('-f, --format <format>', 'output format').choices(['pretty', 'json']).default('pretty'),
    )
    .action(async (query: string, options: DepsOptions) => {
      try {
        const body = parseQuery(query)
        const loaded = await loadPolicy({
          paths: options.data,
          bundles: options.bundle,
          ignore: options.ignore,
          ...(options.v0Compatible ? { v0: true } : {}),
        })
        // As `opa deps`: modules only, print() calls left out (OPA's default compiler drops them).
        const policy = compile(loaded.modules, {}, { enablePrintStatements: false })
        const deps = queryDependencies(policy.compiler, body)
        process.stdout.write(
          options.format === 'json' ? depsJson(deps.base, deps.virtual) : depsPretty(deps.base, deps.virtual),
        )
      } catch (err) {
        process.stderr.write(
          `${err instanceof RegoErrors ? err.toString() : err instanceof Error ? err.message : String(err)}\n`,
        )
        process.exitCode = 1
      }
    })
}

/** `{"base": [...], "virtual": [...]}` with refs as AST JSON, two-space indented as OPA prints it. */
function depsJson(base: DependencyRef[], virtual: DependencyRef[]): string {
  const refJson = (r: DependencyRef) => r.map((t: Term) => toOpaJson(t))
  const doc: Record<string, unknown> = {}
  if (base.length > 0) doc.base = base.map(refJson)
  if (virtual.length > 0) doc.virtual = virtual.map(refJson)
  return `${stringify(doc, undefined, 2)}\n`
}

/** OPA's table: `BASE DOCUMENTS` and `VIRTUAL DOCUMENTS` columns, only those that have rows. */
function depsPretty(base: DependencyRef[], virtual: DependencyRef[]): string {
  const columns: Array<[string, string[]]> = []
  if (base.length > 0) columns.push(['BASE DOCUMENTS', base.map(refString)])
  if (virtual.length > 0) columns.push(['VIRTUAL DOCUMENTS', virtual.map(refString)])
  if (columns.length === 0) return ''
  const widths = columns.map(([h, rows]) => Math.max(h.length, ...rows.map((r) => r.length)))
  const rowCount = Math.max(...columns.map(([, rows]) => rows.length))
  const line = `+${widths.map((w) => '-'.repeat(w + 2)).join('+')}+`
  const centre = (text: string, w: number) => {
    const left = Math.floor((w - text.length) / 2)
    return `${' '.repeat(left)}${text}${' '.repeat(w - text.length - left)}`
  }
  const header = `|${columns.map(([h], i) => ` ${centre(h, widths[i] as number)} `).join('|')}|`
  const rows: string[] = []
  for (let r = 0; r < rowCount; r++) {
    rows.push(
      `|${columns.map(([, cells], i) => ` ${(cells[r] ?? '').padEnd(widths[i] as number)} `).join('|')}|`,
    )
  }
  return `${[line, header, line, ...rows, line].join('\n')}\n`
}
