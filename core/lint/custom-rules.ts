/**
 * Custom rules (`-r/--rules`), written as Regal's are: one package per rule,
 * `package custom.regal.rules.<category>.<name>`, with `report contains violation if …` over the
 * file's AST as OPA's JSON (`input`, with locations), evaluated by regent's own engine. Two helpers
 * of Regal's library are provided under `data.regal.result`, enough for the usual pattern:
 *
 * ```rego
 * report contains violation if {
 *   some rule in input.rules
 *   not startswith(rule.head.ref[0].value, "x_")
 *   violation := result.fail(rego.metadata.chain(), result.location(rule))
 * }
 * ```
 *
 * `input.regal.file` holds `name` and `lines`. A violation's title and category come from the
 * package path, its description from the package's `# METADATA` title/description (else the rule
 * name); its location from `location: {row, col}` (what `result.location` returns).
 */
import { createBuiltinContext } from '../rego/builtins/context.js'
import { RegoError, RegoErrors } from '../rego/errors.js'
import { compile, DEFAULT_EVALUATION_BUDGET, evaluate } from '../rego/index.js'
import type { Module } from '../rego/syntax/ast.js'
import { stringifyOpaJson } from '../rego/syntax/json.js'
import { parseModuleWithErrors } from '../rego/syntax/module-parser.js'
import { toJS } from '../rego/values/index.js'
import type { Finding, LintFile, LintRule } from './types.js'

/** regent's stand-in for the part of Regal's `data.regal.result` library custom rules use. */
const RESULT_LIBRARY = `package regal.result

# The violation is the details object; the linter adds title and category from the package path.
fail(_, details) := details

location(x) := {"location": {"row": x.location.row, "col": x.location.col}} if x.location.row

location(x) := {"location": {"row": 1, "col": 1}} if not x.location.row
`

const CUSTOM_PREFIX = ['custom', 'regal', 'rules']

/** Options of {@link loadCustomRules}. */
export interface CustomRuleOptions {
  /** Where `print` output goes; undefined drops it (`--enable-print` sends it to stderr). */
  print?: (message: string) => void
}

/**
 * Parses and compiles custom rule files into lint rules.
 * @throws RegoErrors when a file does not parse or compile, or declares no rule package.
 */
export function loadCustomRules(
  sources: ReadonlyArray<{ file: string; text: string }>,
  options: CustomRuleOptions = {},
): LintRule[] {
  const modules = new Map<string, Module>()
  const errors: RegoError[] = []
  for (const { file, text } of [...sources, { file: 'regent:regal/result.rego', text: RESULT_LIBRARY }]) {
    const parsed = parseModuleWithErrors(text, { file })
    if (parsed.module) modules.set(file, parsed.module)
    else errors.push(...parsed.errors)
  }
  if (errors.length > 0) throw new RegoErrors(errors)
  const policy = compile(modules)
  const rules: LintRule[] = []
  for (const [file, module] of modules) {
    const path = module.package.path.slice(1).map((t) => (t.type === 'string' ? t.value : ''))
    if (!CUSTOM_PREFIX.every((p, i) => path[i] === p)) continue
    if (path.length !== 5) {
      throw new RegoErrors([
        new RegoError(
          'rego_parse_error',
          `${file}: custom rule package must be custom.regal.rules.<category>.<name>, got ${path.join('.')}`,
        ),
      ])
    }
    const [category, name] = path.slice(3) as [string, string]
    const meta = module.annotations.find((a) => a.scope === 'package') ?? module.annotations[0]
    // Bracketed: rule names have hyphens (`naming-convention`).
    const query = `data.custom.regal.rules[${JSON.stringify(category)}][${JSON.stringify(name)}]`
    rules.push({
      name,
      category,
      description: meta?.description ?? meta?.title ?? name,
      documentation: `custom rule ${file}`,
      async check({ file: target }) {
        const run = await evaluate(`x := ${query}.report`, astInput(target), {
          policy,
          // A custom rule that loops or explodes stops with an error instead of hanging the run.
          budget: DEFAULT_EVALUATION_BUDGET,
          // No network for lint rules; `rego.metadata.*` answers from the rule's own policy.
          ctx: createBuiltinContext({
            print: options.print ?? (() => {}),
            allowNet: [],
            regoMetadata: policy.regoMetadata,
            parseModule: policy.parseModule,
          }),
        })
        // A built-in error would silently drop violations: fail the run instead.
        const [builtinError] = run.builtinErrors
        if (builtinError) throw new Error(`custom rule ${category}/${name}: ${builtinError.message}`)
        const found: Finding[] = []
        for (const result of run.results) {
          const report = toJS(result.bindings.get('x') as never)
          for (const violation of Array.isArray(report) ? report : []) found.push(toFinding(violation))
        }
        return found
      },
    })
  }
  if (rules.length === 0) {
    throw new RegoErrors([
      new RegoError(
        'rego_parse_error',
        'no custom rule found: packages must be custom.regal.rules.<category>.<name>',
      ),
    ])
  }
  return rules
}

/** The AST JSON of a file, with locations, plus Regal's `input.regal.file`. */
function astInput(file: LintFile): unknown {
  const ast = JSON.parse(stringifyOpaJson(file.module, { locations: true, comments: true })) as Record<
    string,
    unknown
  >
  ast.regal = { file: { name: file.file, lines: file.lines } }
  return ast
}

function toFinding(violation: unknown): Finding {
  const v = (typeof violation === 'object' && violation !== null ? violation : {}) as Record<string, unknown>
  const loc = (v.location ?? {}) as Record<string, unknown>
  const row = typeof loc.row === 'number' ? loc.row : 1
  const col = typeof loc.col === 'number' ? loc.col : 1
  const message = typeof v.description === 'string' ? v.description : undefined
  return { location: { row, col }, ...(message ? { message } : {}) }
}
