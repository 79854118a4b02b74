/**
 * What the shell holds: the policies and data loaded at start (as `regent run -s` loads them), the
 * modules typed into the shell (one per package, OPA names them by package path, `data.repl`), the
 * current package, and the policy compiled from all of them. Every change is compiled first and
 * kept only when it compiles, so a bad rule leaves the shell as it was (OPA's `compileRule`).
 */

import type { LoadedState } from '../../agent/load.js'
import {
  compile,
  formatModule,
  type Import,
  type Module,
  type Package,
  type Policy,
  type Rule,
} from '../../core/rego/index.js'
import type { ObjectValue, Value } from '../../core/rego/values/index.js'

/** The package OPA's REPL starts in. */
export const DEFAULT_PACKAGE = 'repl'

/** How the shell parses and compiles. */
export interface ShellStateOptions {
  regoVersion: 'v0' | 'v1'
  /** Compile errors reported before stopping (`-m`). */
  maxErrors: number
}

/** The outcome of adding rules: whether an earlier definition was replaced (`re-defined`). */
export interface DefineResult {
  redefined: boolean
}

/** The shell's modules and the policy compiled from them; see the file comment. */
export class ShellState {
  readonly options: ShellStateOptions
  readonly #loaded: ReadonlyMap<string, Module>
  readonly #data: ObjectValue
  /** Shell modules by id (`data.repl`), in the order their packages were first entered. */
  #modules = new Map<string, Module>()
  /** The id of the current module; undefined until a package, import or rule is entered. */
  #current: string | undefined
  #policy: Policy | undefined
  /** `input := value` of package repl in Rego v1, where OPA refuses a rule named input. */
  #input: { text: string; value: Value } | undefined

  /** Compiles what was loaded; throws `RegoErrors` when it does not compile. */
  constructor(loaded: LoadedState, options: ShellStateOptions) {
    this.options = options
    this.#loaded = new Map(loaded.policies.map((p) => [p.id, p.module]))
    this.#data = loaded.data
    this.#policy = this.#compile(this.#modules)
  }

  /** The base data document. */
  get data(): ObjectValue {
    return this.#data
  }

  /** The policy queries run on: loaded modules, shell modules and data. */
  get policy(): Policy {
    this.#policy ??= this.#compile(this.#modules)
    return this.#policy
  }

  /** The current module, or undefined before anything was defined. */
  get currentModule(): Module | undefined {
    return this.#current === undefined ? undefined : this.#modules.get(this.#current)
  }

  /** The current package, dotted without `data.` (`repl` before any `package`). */
  get packageText(): string {
    const module = this.currentModule
    return module ? packagePath(module.package) : DEFAULT_PACKAGE
  }

  /** The input set with `input := value` in package repl (Rego v1 only), if any. */
  get input(): { text: string; value: Value } | undefined {
    return this.#input
  }

  /** Sets or clears the shell's own input document (see {@link ShellState.input}). */
  setInput(input: { text: string; value: Value } | undefined): void {
    this.#input = input
  }

  /** True when `name` is a rule of the current package (loaded or typed) or an import's name. */
  isGlobal(name: string): boolean {
    const module = this.currentModule
    if (module?.imports.some((i) => importName(i) === name)) return true
    const pkg = this.packageText
    const modules = [...this.#loaded.values(), ...this.#modules.values()]
    return modules.some((m) => packagePath(m.package) === pkg && m.rules.some((r) => ruleName(r) === name))
  }

  /**
   * Rule paths (`data.a.b.p`) of every module, rule names of the current package, and the current
   * module's import names that start with `prefix` (OPA's completer), sorted.
   */
  completions(prefix: string): string[] {
    const found = new Set<string>()
    const pkg = this.packageText
    for (const module of [...this.#loaded.values(), ...this.#modules.values()]) {
      const path = packagePath(module.package)
      for (const rule of module.rules) {
        found.add(`data.${path}.${ruleName(rule)}`)
        if (path === pkg) found.add(ruleName(rule))
      }
    }
    for (const imp of this.currentModule?.imports ?? []) found.add(importName(imp))
    return [...found].filter((c) => c.startsWith(prefix)).sort()
  }

  /** Switches to `pkg`, creating its module on first use (OPA's `evalPackage`). */
  enterPackage(pkg: Package): void {
    const id = moduleId(pkg)
    if (!this.#modules.has(id)) {
      this.#modules.set(id, emptyModule(pkg, this.options.regoVersion))
    }
    this.#current = id
  }

  /** Adds imports to the current module, skipping ones it already has. */
  addImports(imports: readonly Import[]): void {
    const module = this.#ensureModule()
    const known = new Set(module.imports.map(importKey))
    const added = imports.filter((i) => !known.has(importKey(i)))
    if (added.length === 0) return
    this.#replace(module, { ...module, imports: [...module.imports, ...added] })
  }

  /**
   * Adds rules to the current module. A rule written with `:=` replaces the rules of its name first
   * (OPA's REPL re-defines it); a `default` rule only replaces the earlier default of its name.
   * @throws RegoErrors when the result does not compile; nothing changes then.
   */
  addRules(rules: readonly Rule[]): DefineResult {
    const module = this.#ensureModule()
    let kept = module.rules
    let redefined = false
    for (const rule of rules) {
      if (!rule.head.assign) continue
      const name = ruleName(rule)
      const before = kept.length
      kept = kept.filter((r) => ruleName(r) !== name || (rule.default === true) !== (r.default === true))
      if (kept.length < before) redefined = true
    }
    this.#replace(module, { ...module, rules: [...kept, ...rules] })
    return { redefined }
  }

  /**
   * Removes every rule named `name` from the current module. Resolves to false when there was none.
   * @throws RegoErrors when the other modules no longer compile without them.
   */
  unsetRule(name: string): boolean {
    if (name === 'input' && this.#input && this.packageText === DEFAULT_PACKAGE) {
      this.#input = undefined
      return true
    }
    const module = this.currentModule
    if (!module) return false
    const rules = module.rules.filter((r) => ruleName(r) !== name)
    if (rules.length === module.rules.length) return false
    this.#replace(module, { ...module, rules })
    return true
  }

  /**
   * Removes the shell module of package `pkg`; the shell falls back to package repl when it was
   * the current one. Resolves to false when the shell has no such module.
   */
  unsetPackage(pkg: Package): boolean {
    const id = moduleId(pkg)
    if (!this.#modules.has(id)) return false
    const next = new Map(this.#modules)
    next.delete(id)
    this.#policy = this.#compile(next)
    this.#modules = next
    if (this.#current === id) this.#current = undefined
    return true
  }

  /**
   * The current module as `regent fmt` prints it, with a blank line between rules as OPA's `show`
   * has them, or OPA's `no rules defined`. Each rule is formatted on its own: rules typed on
   * different lines of the shell all sit on row 1, and the formatter would run them together.
   */
  show(): string {
    const module = this.currentModule
    if (!module) return 'no rules defined\n'
    const header = formatModule({ ...module, rules: [] })
    const rules = module.rules.map((rule) => {
      const text = formatModule({ ...module, rules: [rule] })
      return (text.startsWith(header) ? text.slice(header.length) : text).trim()
    })
    if (this.#input && packagePath(module.package) === DEFAULT_PACKAGE)
      rules.push(`input := ${this.#input.text}`)
    return rules.length === 0 ? header : `${header}\n${rules.join('\n\n')}\n`
  }

  /** Creates package repl's module unless a module is current (OPA's `initModule`). */
  ensureModule(): Module {
    return this.#ensureModule()
  }

  #ensureModule(): Module {
    if (!this.currentModule) this.enterPackage(defaultPackage())
    return this.currentModule as Module
  }

  #replace(module: Module, next: Module): void {
    const id = moduleId(module.package)
    const modules = new Map(this.#modules)
    modules.set(id, next)
    this.#policy = this.#compile(modules)
    this.#modules = modules
  }

  #compile(shellModules: ReadonlyMap<string, Module>): Policy {
    // The compiler refuses rules where the data holds a value (conflicting rule for data path).
    return compile(new Map([...this.#loaded, ...shellModules]), this.#data, {
      enablePrintStatements: true,
      maxErrors: this.options.maxErrors,
    })
  }
}

/** `a.b` for `package a.b`. */
export function packagePath(pkg: Package): string {
  return pkg.path
    .slice(1)
    .map((t) => (t.type === 'string' ? t.value : ''))
    .join('.')
}

/** OPA's module id for a shell package: `data.a.b`. */
function moduleId(pkg: Package): string {
  return `data.${packagePath(pkg)}`
}

/** The name a rule is known by in its package (the first part of its head). */
export function ruleName(rule: Rule): string {
  const first = rule.head.ref[0]
  return first?.type === 'var' ? first.value : (rule.head.name ?? '')
}

function importName(imp: Import): string {
  if (imp.alias) return imp.alias
  const last = imp.path.value[imp.path.value.length - 1]
  return last?.type === 'string' || last?.type === 'var' ? last.value : ''
}

function importKey(imp: Import): string {
  return `${imp.path.value.map((t) => (t.type === 'string' || t.type === 'var' ? t.value : t.type)).join('.')} as ${imp.alias ?? ''}`
}

function emptyModule(pkg: Package, regoVersion: 'v0' | 'v1'): Module {
  return {
    type: 'module',
    package: pkg,
    imports: [],
    rules: [],
    annotations: [],
    comments: [],
    regoVersion,
    ...(pkg.location ? { location: pkg.location } : {}),
  }
}

/** `package repl`, which OPA's REPL creates on the first definition. */
export function defaultPackage(): Package {
  return {
    type: 'package',
    path: [
      { type: 'var', value: 'data' },
      { type: 'string', value: DEFAULT_PACKAGE },
    ],
  }
}
