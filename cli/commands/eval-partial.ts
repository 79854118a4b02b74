/**
 * `regent eval -p [-u REF]... [--disable-inlining REF]... [--shallow-inlining] <query>`: partial
 * evaluation instead of evaluation, as `opa eval -p` does. JSON output is OPA's `{"partial": {"queries": [...], "support": [...]}}` in AST JSON; the
 * pretty output lists each residual query as Rego and the support modules formatted.
 */
import { stringify } from 'lossless-json'
import { createBuiltinContext } from '../../core/rego/builtins/context.js'
import { partialEvaluate } from '../../core/rego/eval/partial.js'
import { compilePolicy } from '../../core/rego/eval/policy.js'
import { formatModule } from '../../core/rego/format/formatter.js'
import type { Body, Term } from '../../core/rego/syntax/ast.js'
import { toOpaJson } from '../../core/rego/syntax/json.js'
import { loadCapabilities } from '../capabilities-option.js'
import { schemaCompileOptions } from '../input-schema.js'
import { multilineTable } from '../presentation.js'
import { loadQueryPolicy, parseImportFlags, readQueryInput } from '../query-options.js'
import { runtimeTerm } from '../runtime-term.js'
import type { EvalLimits } from './eval.js'
import { writeFailure } from './eval-errors.js'
import { missingEntrypoint } from './eval-optimize.js'
import { partialSource } from './eval-source.js'

/** What `eval -p` reads from the eval options. */
export interface PartialEvalOptions {
  data: string[]
  bundle: string[]
  ignore: string[]
  input?: string
  stdinInput?: boolean
  unknowns: string[]
  disableInlining: string[]
  shallowInlining?: boolean
  nondeterminsticBuiltins?: boolean
  format: string
  strict?: boolean
  schema?: string
  v0Compatible?: boolean
  strictBuiltinErrors?: boolean
  fail?: boolean
  failDefined?: boolean
  capabilities?: string
  /** `--import`: imports that decide the query's keywords. */
  import?: string[]
  /** `-O` and `-e`: an optimized evaluation of `-d`/`-b` files needs an entrypoint. */
  optimize: string
  entrypoint: string[]
}

/** Runs `eval -p`; sets the exit code (1 on errors, and with --fail/--fail-defined). */
export async function runPartialEval(
  query: string,
  options: PartialEvalOptions,
  limits: EvalLimits,
): Promise<void> {
  try {
    const loaded = await loadQueryPolicy(options)
    const unoptimizable = missingEntrypoint(loaded.modules, options)
    if (unoptimizable) {
      process.stderr.write(`regent: ${unoptimizable}\n`)
      process.exitCode = 2
      return
    }
    const input = await readQueryInput(options)
    const schema = await schemaCompileOptions(options.schema)
    const capabilities = await loadCapabilities(options.capabilities)
    const policy = compilePolicy(loaded.modules, loaded.data, {
      strict: options.strict === true,
      ...schema,
      ...(capabilities ? { builtins: capabilities.builtins } : {}),
    })
    const result = await partialEvaluate(policy, query, {
      ...(input !== undefined ? { input } : {}),
      queryImports: parseImportFlags(options.import ?? []),
      unknowns: options.unknowns.length > 0 ? options.unknowns : ['input'],
      disableInlining: options.disableInlining,
      shallowInlining: options.shallowInlining === true,
      nondeterministicBuiltins: options.nondeterminsticBuiltins === true,
      ctx: createBuiltinContext({
        strictBuiltinErrors: options.strictBuiltinErrors === true,
        runtime: runtimeTerm(),
        ...(capabilities?.allowNet ? { allowNet: capabilities.allowNet } : {}),
      }),
      budget: limits.budget,
    })
    if (options.format === 'json' || options.format === 'discard') {
      // `discard` only replaces a `result` member, which a partial evaluation has not.
      const doc = {
        partial: {
          queries: result.queries.map((q) => toOpaJson(q)),
          ...(result.support.length > 0 ? { support: result.support.map((m) => toOpaJson(m)) } : {}),
        },
      }
      process.stdout.write(`${stringify(doc, undefined, 2)}\n`)
    } else if (options.format === 'source') {
      process.stdout.write(
        partialSource(
          result.queries,
          result.support.map((m) => formatModule(m)),
        ),
      )
    } else {
      process.stdout.write(
        prettyPartial(
          result.queries,
          result.support.map((m) => formatModule(m)),
        ),
      )
    }
    if (options.fail && result.queries.length === 0) process.exitCode = 1
    if (options.failDefined && result.queries.length > 0) process.exitCode = 1
  } catch (err) {
    writeFailure(err, options)
  }
}

/**
 * Residual queries and support modules as OPA's pretty table: a `Query N` row per query (its expressions
 * one a line), then a `Support N` row per formatted module.
 */
export function prettyPartial(queries: readonly Body[], support: readonly string[]): string {
  if (queries.length === 0) return 'false (no query can be true)\n'
  const rows: string[][] = []
  for (const [i, q] of queries.entries())
    rows.push([`Query ${i + 1}`, q.length === 0 ? 'true' : q.map(queryExprText).join('\n')])
  for (const [i, text] of support.entries()) rows.push([`Support ${i + 1}`, text.trimEnd()])
  return multilineTable(rows)
}

/** One expression of a residual query as Rego text. */
export function queryExprText(expr: Body[number]): string {
  // A body of one expression printed through a throwaway module keeps the formatter's Rego syntax.
  const module = formatModule({
    type: 'module',
    package: {
      type: 'package',
      path: [
        { type: 'var', value: 'data' },
        { type: 'string', value: 'q' },
      ],
    },
    imports: [],
    rules: [
      { type: 'rule', head: { type: 'head', name: 'q', ref: [var_('q')] }, body: [{ ...expr, index: 0 }] },
    ],
    annotations: [],
    comments: [],
    regoVersion: 'v1',
  })
  const body = module.slice(module.indexOf('{') + 1, module.lastIndexOf('}')).trim()
  return body.length > 0 ? body : module.split('\n').slice(1).join(' ').trim()
}

function var_(name: string): Term {
  return { type: 'var', value: name }
}
