/**
 * Module-level parsing: `package`, `import`, rules (heads, bodies, `else` chains, `default`), the
 * Rego v1 keyword checks, error recovery between statements, and the public parse functions.
 *
 * Rule heads follow OPA's normalisation exactly, because the compiler and OPA's JSON depend on it:
 * `p[x] if ...` is a single-value rule with `key` x and value `true`; `p[x] { ... }` (v0) is a
 * multi-value rule `p` with key x; `p contains x` has a key and no value; functions keep `args`.
 */
import { parseError, type RegoError, RegoErrors } from '../errors.js'
import { attachAnnotations } from './annotations.js'
import type { Body, Expr, Head, Import, Location, Module, Package, RefTerm, Rule, Term } from './ast.js'
import { copyHead, copyTerm } from './copy.js'
import { MAX_DEPTH_MESSAGE } from './cursor.js'
import { ParseAbort, type ParseOptions, Parser } from './parser.js'
import { locationText } from './source.js'
import { FUTURE_KEYWORDS, isKeywordKind, LATER_FUTURE_KEYWORDS, T } from './tokens.js'

/** The outcome of parsing one module: the module when it parsed, and the errors found. */
export interface ModuleParseResult {
  module: Module | undefined
  errors: RegoError[]
}

const IMPORT_ROOTS = new Set(['data', 'input', 'future', 'rego'])

/** Parses whole modules, recovering at statement boundaries to report up to `maxErrors` errors. */
export class ModuleParser extends Parser {
  private readonly errors: RegoError[] = []
  private readonly maxErrors: number
  /** True once `import rego.v1` is seen in a v0 module: the v1 keyword rules then apply. */
  private v1Compatible = false
  /** Set by `parseHead`: whether the head used `contains`. */
  private headUsesContains = false
  /** Set by `parseHead`: whether the head was written as a call (`f(x)`, `p()`). */
  private headIsCall = false

  constructor(text: string, options: ParseOptions = {}) {
    super(text, options)
    this.maxErrors = options.maxErrors ?? 10
  }

  /** module := package { import } { rule } */
  parseModuleResult(): ModuleParseResult {
    let pkg: Package | undefined
    const imports: Import[] = []
    const rules: Rule[] = []
    while (this.peek() !== T.EOF && this.errors.length < this.maxErrors) {
      try {
        this.depth = 0
        if (this.peek() === T.Package && !this.keywordStartsRef()) {
          if (pkg) this.unexpected('package must be the first statement and appear once')
          if (imports.length + rules.length > 0)
            this.fail('package expected', rules[0]?.location ?? imports[0]?.location)
          pkg = this.parsePackage()
        } else if (!pkg) {
          this.fail('package expected')
        } else if (this.peek() === T.Import && !this.keywordStartsRef()) {
          imports.push(this.parseImport())
        } else {
          this.parseRules(rules)
        }
      } catch (err) {
        if (err instanceof RangeError) {
          this.errors.push(parseError(this.loc(), MAX_DEPTH_MESSAGE, this.source.excerpt(this.loc())))
          break
        }
        if (!(err instanceof ParseAbort)) throw err
        this.errors.push(err.error)
        this.resync()
      }
    }
    if (!pkg) {
      if (this.errors.length === 0)
        this.errors.push(parseError({ file: this.file, row: 1, col: 1 }, 'empty module'))
      return { module: undefined, errors: this.errors }
    }
    if (this.regoVersion === 'v1' || this.v1Compatible) this.checkV1Keywords(rules)
    const module: Module = {
      type: 'module',
      package: pkg,
      imports,
      rules,
      annotations: [],
      comments: this.comments,
      regoVersion: this.regoVersion,
      location: pkg.location,
    }
    this.errors.push(...attachAnnotations(module, this.source))
    return {
      module: this.errors.length === 0 ? module : undefined,
      errors: this.errors.slice(0, this.maxErrors),
    }
  }

  /** Skips to the next token that starts a line at column 1, where a new statement can begin. */
  private resync(): void {
    this.advance()
    const startsStatement = () => {
      const kind = this.rawKindAt(this.i)
      return this.newlineBefore() && this.atLineStart(this.i) && (kind === T.Ident || isKeywordKind(kind))
    }
    while (this.peek() !== T.EOF && !startsStatement()) this.advance()
  }

  /** package := "package" ref, stored as `data.<ref>` */
  private parsePackage(): Package {
    const loc = this.loc()
    this.advance()
    const path = this.parsePath('expected path')
    const [head, ...rest] = path.value
    // As OPA: the first segment must be a name (`package e().s` is not a package).
    if (head && head.type !== 'var') this.fail(`unexpected ${head.type} token: expecting var`, head.location)
    const data: Term = { type: 'var', value: 'data', location: head?.location }
    const first: Term = {
      type: 'string',
      value: head?.type === 'var' ? head.value : '',
      location: head?.location,
    }
    for (const part of rest) {
      if (part.type !== 'string') this.fail(`unexpected ${part.type} token: expecting string`, part.location)
    }
    // As OPA's parser: a package's location is its keyword's (its text is `package`).
    return { type: 'package', path: [data, first, ...rest], location: loc }
  }

  /** A dotted/bracketed path whose head is any word (keywords allowed, as in `package foo.as.bar`). */
  private parsePath(note: string): RefTerm {
    const kind = this.rawKindAt(this.i)
    if (kind !== T.Ident && !isKeywordKind(kind)) this.unexpected(note)
    const head = this.parseVarWord()
    const term = this.parseTermSuffix(head, false)
    if (term.type === 'var') return { type: 'ref', value: [term], location: term.location }
    if (term.type !== 'ref') this.fail(`unexpected ${term.type} token: expecting ref`, term.location)
    return term
  }

  private parseVarWord(location: Location = this.loc()): Term {
    const value = this.tokText()
    this.advance()
    return { type: 'var', value, location }
  }

  /** import := "import" ref [ "as" var ] */
  private parseImport(): Import {
    const loc = this.loc()
    this.advance()
    const path = this.parsePath('expected path')
    for (const part of path.value.slice(1)) {
      if (part.type !== 'string') this.fail(`unexpected ${part.type} token: expecting string`, part.location)
    }
    const root = path.value[0]
    const rootName = root?.type === 'var' ? root.value : ''
    if (!IMPORT_ROOTS.has(rootName)) {
      this.fail(
        // OPA appends the hint it gave with the error (a newer OPA may know more roots).
        `unexpected import path, must begin with one of: {data, future, input, rego}, got: ${rootName} (hint: if this is unexpected, try updating OPA)`,
        path.location,
      )
    }
    const imp: Import = { type: 'import', path, location: loc }
    if (this.peek() === T.As) {
      this.advance()
      if (this.peek() !== T.Ident) this.unexpected('expected var')
      // As OPA, the alias is read as a whole term (`A(`, `a.b`), then refused unless a plain var.
      let alias: Term | undefined
      try {
        alias = this.parseTerm()
      } catch (err) {
        if (!(err instanceof ParseAbort)) throw err
      }
      if (alias?.type !== 'var') this.unexpected('expected var')
      imp.alias = alias.value
    } else if (rootName !== 'future' && path.value.length > 1) {
      const last = path.value[path.value.length - 1]
      if (last?.type === 'string' && this.isActiveKeyword(last.value)) {
        this.fail(
          `unexpected import path, must not end with a keyword, got: ${last.value} (hint: import a different path or use an alias)`,
          last.location,
        )
      }
    }
    if (rootName === 'future') this.futureImport(imp)
    if (rootName === 'rego') this.regoImport(imp)
    // As OPA's parser: an import's location is its keyword's (its text is `import`).
    return imp
  }

  private isActiveKeyword(word: string): boolean {
    const kind = FUTURE_KEYWORDS.get(word)
    if (kind !== undefined) return this.isKeywordActive(kind)
    return [
      'package',
      'import',
      'as',
      'default',
      'else',
      'not',
      'some',
      'with',
      'null',
      'true',
      'false',
    ].includes(word)
  }

  /**
   * `import future.keywords[.kw]`: enables keywords in v0 (a no-op for them in v1). `not` (OPA 1.17+,
   * when the capabilities list it) is a keyword in both already; importing it changes what `not`
   * means, in v0 and v1 alike: see `NotBody`. The bare `future.keywords` imports every allowed one.
   */
  private futureImport(imp: Import): void {
    const path = imp.path.value
    const second = path[1]
    if (path.length === 1 || second?.type !== 'string' || second.value !== 'keywords') {
      this.fail('invalid import, must be `future.keywords`', imp.path.location)
    }
    if (imp.alias) this.fail('`future` imports cannot be aliased', imp.path.location)
    if (path.length > 3)
      this.fail(
        'invalid import, must be `future.keywords.x`, e.g. `import future.keywords.in`',
        imp.path.location,
      )
    const allowed = this.allowedFutureKeywords()
    const third = path[2]
    const chosen = third?.type === 'string' ? [third.value] : allowed
    if (third?.type === 'string' && !allowed.includes(third.value))
      this.fail(`unexpected keyword, must be one of [${allowed.join(' ')}]`, imp.path.location)
    for (const word of chosen) {
      if (word === 'not') this.notBodies = true
      if (word === 'and') this.andKeyword = true
      if (word === 'or') this.orKeyword = true
      const kind = FUTURE_KEYWORDS.get(word)
      if (kind !== undefined) this.activateKeyword(kind)
      // `every x in xs` is written with `in`: importing `every` enables `in` too, as in OPA.
      if (word === 'every') this.activateKeyword(T.In)
    }
  }

  /**
   * The keywords `import future.keywords.x` accepts, sorted, as OPA's parser works them out: in v1
   * the four v1 keywords plus those of the capabilities' `future_keywords` that came later (`not`);
   * in v0 only what the capabilities list (the four as well when they have the `rego_v1` feature).
   */
  private allowedFutureKeywords(): string[] {
    const later = this.futureKeywordNames.filter((k) => LATER_FUTURE_KEYWORDS.has(k))
    const v0 = this.futureKeywordNames.filter((k) => FUTURE_KEYWORDS.has(k))
    const words =
      this.regoVersion === 'v1' || this.features.includes('rego_v1')
        ? [...FUTURE_KEYWORDS.keys(), ...later]
        : [...v0, ...later]
    return [...new Set(words)].sort()
  }

  /**
   * `import rego.v1`: a no-op in v1; in v0 it enables every v1 keyword and v1's rules.
   * `import rego.v2` (OPA 1.22+, capability feature `rego_v2_import`): the improved `not` of
   * `future.keywords.not`, the `and` and `or` keywords (OPA 1.20), and `rego.v1` in a v0 module.
   */
  private regoImport(imp: Import): void {
    const path = imp.path.value
    const second = path[1]
    const version = path.length === 2 && second?.type === 'string' ? second.value : ''
    if (version === 'v2' && !this.features.includes('rego_v2_import')) {
      this.fail('invalid import, `rego.v2` is not supported by current capabilities', imp.path.location)
    }
    if (version !== 'v1' && version !== 'v2') {
      const shown = path.map((t, i) =>
        i === 0 && t.type === 'var' ? t.value : t.type === 'string' ? t.value : '?',
      )
      this.fail(`invalid import \`${shown.join('.')}\`, must be \`rego.v1\``, imp.path.location)
    }
    if (version === 'v2') {
      if (imp.alias) this.fail('`rego` imports cannot be aliased', imp.path.location)
      this.notBodies = true
      this.andKeyword = true
      this.orKeyword = true
    }
    if (this.regoVersion === 'v1') return
    if (imp.alias) this.fail('`rego` imports cannot be aliased', imp.path.location)
    this.v1Compatible = true
    for (const kind of FUTURE_KEYWORDS.values()) this.activateKeyword(kind)
  }

  // -------------------------------------------------------------------------------------------------
  // Rules

  /**
   * rule := ["default"] head [ ["if"] body-or-literal ] { "else" ... } { "{" query "}" }
   * Appends the rule, and one more per extra `{ ... }` body, to `out` once all of them parsed.
   */
  private parseRules(out: Rule[]): void {
    const ruleTok = this.i
    const ruleLoc = this.loc()
    let isDefault = false
    if (this.peek() === T.Default && !this.keywordStartsRef()) {
      isDefault = true
      this.advance()
    }
    if (this.peek() !== T.Ident && !this.keywordStartsRef()) {
      // OPA reads a statement that starts no rule as a query: `default 0` fails at `default`, and a
      // keyword that starts no literal (`} if {` after a rule) is refused as it is.
      if (isDefault) this.fail('unexpected default keyword', ruleLoc)
      const kind = this.peek()
      if (isKeywordKind(kind) && kind !== T.Some && kind !== T.Not && kind !== T.Every) this.unexpected()
      this.unexpected('expected rule')
    }
    // Without `default`, the rule and its head start at the same token: one location for both.
    const head = this.parseHead(isDefault, isDefault ? this.loc() : ruleLoc)
    const usesContains = this.headUsesContains
    if (usesContains) head.keywords = { if: head.keywords?.if === true, contains: true }

    // Rules are built whole at the end, with the keys they always had, so they keep one shape.
    if (isDefault) {
      this.validateDefault(head, ruleLoc)
      const body = [trueExpr(ruleLoc)]
      out.push({ type: 'rule', head, body, location: this.span(ruleLoc), default: true, generatedBody: true })
      return
    }

    const hasIf = this.peek() === T.If && !this.keywordStartsRef()
    const ref = head.ref
    if (hasIf && !usesContains && ref.length === 2) {
      const v = ref[1] as Term
      if ((!isGround(v) || v.type === 'ref') && !head.args) head.key = v
      if (head.value === undefined) {
        head.generatedValue = true
        head.value = { type: 'boolean', value: true, location: head.location }
      } else {
        const first = ref[0] as Term
        if (first.type !== 'var') this.fail('rule head ref must start with a var', first.location)
        head.name = first.value
      }
    }
    if (!hasIf && !usesContains && !head.args && ref.length === 2) {
      const first = ref[0] as Term
      if (first.type !== 'var') this.fail('rule head ref must start with a var', first.location)
      head.name = first.value
      head.key = ref[1]
      if (head.value === undefined) head.ref = [first]
    }

    let body: Body
    let generatedBody = false
    if (hasIf) {
      head.keywords = { if: true, contains: head.keywords?.contains === true }
      this.advance()
      body = this.parseIfBody()
    } else if (this.peek() === T.LBrace) {
      this.advance()
      body = this.parseBody()
    } else if (usesContains) {
      body = [trueExpr(ruleLoc)]
      out.push({ type: 'rule', head, body, location: head.location, generatedBody: true })
      return
    } else {
      if (this.peek() !== T.EOF && !this.newlineBefore() && this.peek() !== T.Semicolon) {
        const word = this.tokText()
        const hint =
          this.peek() === T.Ident && FUTURE_KEYWORDS.has(word)
            ? ` (hint: \`import future.keywords.${word}\` for '${word}' keyword)`
            : ''
        this.unexpected(hint ? `expected rule body${hint}` : undefined)
      }
      // A head alone is read by OPA as an expression turned into a rule: refused for a bare name,
      // `data`/`input` (refs), `p()`, and `assign(x)`/`eq(x)` (`:=`/`=` with an operand missing).
      if (head.ref.length === 1 && !head.args && head.generatedValue) {
        const first = head.ref[0]
        const name = first?.type === 'var' ? first.value : ''
        if (this.headIsCall) {
          if (name === 'assign' || name === 'eq') this.fail('assignment requires two operands', ruleLoc)
          this.fail('rule argument list must take at least one argument', ruleLoc)
        }
        if (name === 'data' || name === 'input') this.fail('refs cannot be used for rule head', ruleLoc)
        this.fail('var cannot be used for rule name', ruleLoc)
      }
      if (this.headIsCall && (head.name === 'assign' || head.name === 'eq') && (head.args?.length ?? 0) < 2) {
        this.fail('assignment requires two operands', ruleLoc)
      }
      // As OPA's parser: the generated body of `p := 1` is located at the value (opa parse shows it).
      const valueLoc = head.value && !head.generatedValue ? head.value.location : undefined
      body = [trueExpr(valueLoc ?? ruleLoc)]
      generatedBody = true
    }

    let elseRule: Rule | undefined
    if (this.peek() === T.Else && !this.keywordStartsRef()) {
      if (head.ref.length > 1 && !head.ref.slice(1).every(isGround)) {
        this.fail('else keyword cannot be used on rules with variables in head')
      }
      if (head.key) this.fail('else keyword cannot be used on multi-value rules')
      elseRule = this.parseElse(head)
    }
    // A rule without a written body spans what its head spans: share that location.
    const location = this.spans(head.location as Location, ruleTok)
      ? (head.location as Location)
      : this.span(ruleLoc)
    let rule: Rule
    if (elseRule) {
      rule = generatedBody
        ? { type: 'rule', head, body, location, generatedBody: true, else: elseRule }
        : { type: 'rule', head, body, location, else: elseRule }
    } else {
      rule = generatedBody
        ? { type: 'rule', head, body, location, generatedBody: true }
        : { type: 'rule', head, body, location }
    }
    if (this.peek() !== T.LBrace) {
      out.push(rule)
      return
    }
    const rules = [rule]
    while (this.peek() === T.LBrace) {
      if (rule.else) this.fail('expected else keyword')
      const loc = this.loc()
      this.advance()
      const body = this.parseBody()
      const location = this.span(loc)
      const nextHead = relocate(copyHead(head), location)
      if (nextHead.args) nextHead.args = nextHead.args.map((a) => this.renameWildcards(a))
      rules.push({ type: 'rule', head: nextHead, body, location })
    }
    for (const r of rules) out.push(r)
  }

  /**
   * The body after `if`: `{ query }` or a single literal. OPA reads a literal first and falls back
   * to a braced body when that literal is a set; this reads the braced body first (the common case)
   * and only re-reads it as a literal when OPA would keep the literal: when more of the expression
   * follows `}` on the same line, when it is not a body (an object), or for `{ a | b }`, which OPA
   * reads as a set comprehension.
   */
  private parseIfBody(): Body {
    if (this.peek() !== T.LBrace) {
      if (this.peek() === T.EOF) this.unexpected('rule body expected')
      const expr = this.parseLiteral()
      return [expr]
    }
    if (this.kindAt(this.i + 1) === T.RBrace) {
      // `if {}` is an empty body; `if {} == x` is a literal comparing an empty object.
      const after = this.i + 2
      if (this.kindAt(after) === T.EOF || this.newlineBefore(after) || this.kindAt(after) === T.Else) {
        this.fail('found empty body', this.loc(this.i + 1))
      }
    }
    const si = this.i
    const sw = this.wildcard
    const sd = this.depth
    let bodyError: ParseAbort | undefined
    this.advance()
    try {
      const body = this.parseBody()
      // A body ends the rule, or comes before `else` or a chained body (`p if { a } { b }`).
      const next = this.peek()
      const boundary =
        next === T.EOF || this.newlineBefore() || next === T.Else || next === T.Semicolon || next === T.LBrace
      if (boundary && !isAmbiguousUnion(body)) return body
    } catch (err) {
      if (!(err instanceof ParseAbort)) throw err
      bodyError = err
    }
    this.reset(si, sw, sd)
    try {
      const expr = this.parseLiteral()
      const single = expr.terms
      const isSet = !Array.isArray(single) && single.type === 'set'
      if (!isSet) return [expr]
    } catch (err) {
      if (!(err instanceof ParseAbort)) throw err
      throw bodyError ?? err
    }
    if (bodyError) throw bodyError
    this.reset(si, sw, sd)
    this.advance()
    return this.parseBody()
  }

  /** head := ref [ "(" args ")" ] [ "contains" term | (":=" | "=") term ] */
  private parseHead(isDefault: boolean, loc: Location): Head {
    const name = this.parseVarWord(loc)
    const next = this.peek()
    if (next >= T.Equal && next <= T.Or && next !== T.Unify && next !== T.Assign && !this.spaced())
      this.unexpected()
    const term = this.parseTermSuffix(name, true)
    const head: Head = { type: 'head', ref: [], location: loc }
    let isCall = false
    if (term.type === 'var') {
      head.name = term.value
      head.ref = [term]
    } else if (term.type === 'ref') {
      head.ref = term.value
    } else if (term.type === 'call') {
      const [op, ...args] = term.value
      if (op?.type !== 'ref') this.fail('rule head ref invalid', op?.location)
      // As OPA, refused at the token after the head, naming the ref (`q(0).r`).
      if (op.value[0]?.type !== 'var') this.unexpected(`rule head ref ${termText(op)} invalid`)
      isCall = true
      head.ref = op.value
      if (head.ref.length === 1) head.name = (op.value[0] as { value: string }).value
      // OPA keys every function check on len(Args) > 0, so `f() = 1 { … }` is a complete rule
      // named f: its AST has no args, it formats as `f = 1`, and `f` reads its value.
      if (args.length > 0) head.args = args
    } else {
      this.fail('expected rule head name', loc)
    }
    let usesContains = false
    if (this.peek() === T.Contains && !this.keywordStartsRef()) {
      // `p() contains x` too: OPA refuses any head written with parentheses here.
      if (isCall)
        this.unexpected(
          `the contains keyword can only be used with multi-value rule definitions (e.g., ${refText(head)} contains <VALUE> { ... })`,
        )
      this.advance()
      head.key = this.parseInExpr(true)
      usesContains = true
    } else if (this.peek() === T.Unify || this.peek() === T.Assign) {
      const assign = this.peek() === T.Assign
      if (assign) head.assign = true
      this.advance()
      head.value = this.parseHeadValue(head, assign, isDefault)
    }
    if (head.value === undefined && head.key === undefined && (head.ref.length !== 2 || head.args)) {
      head.generatedValue = true
      head.value = { type: 'boolean', value: true, location: loc }
    }
    head.location = this.span(loc)
    this.headUsesContains = usesContains
    this.headIsCall = isCall
    return head
  }

  /**
   * The value after `:=` or `=` in a head. As OPA, a value that does not parse gives two errors: the
   * term's own, then one showing the expected form (`f(...) := <VALUE> { ... }`).
   */
  private parseHeadValue(head: Head, assign: boolean, isDefault: boolean): Term {
    try {
      if (this.peek() === T.EOF) this.unexpected()
      return this.parseInExpr(true)
    } catch (err) {
      if (!(err instanceof ParseAbort)) throw err
      this.errors.push(err.error)
      const name = refText(head)
      if (!assign) this.unexpected(`expected rule value term (e.g., ${name}[<nil>] = <VALUE> { ... })`)
      if (head.args) this.unexpected(`expected function value term (e.g., ${name}(...) := <VALUE> { ... })`)
      if (isDefault) this.unexpected(`expected default rule value term (e.g., default ${name} := <VALUE>)`)
      this.unexpected(`expected rule value term (e.g., ${name} := <VALUE> { ... })`)
    }
  }

  /** else := "else" [ (":=" | "=") term ] [ ["if"] body-or-literal ] [ else ] */
  private parseElse(original: Head): Rule {
    const loc = this.loc()
    const k = this.kindAt(this.i + 1)
    const generated = k === T.LBrace || k === T.If
    // A copy of the head without the keys an else branch does not inherit, keeping the others in
    // their order. Building it afresh (rather than deleting keys) keeps it a fast-mode object.
    const dropAssign = generated || k === T.Unify
    const copy: Record<string, unknown> = {}
    for (const key of Object.keys(original) as Array<keyof Head>) {
      if (key === 'generatedValue' || key === 'keywords' || (dropAssign && key === 'assign')) continue
      const value = original[key]
      if (key === 'ref' || key === 'args') copy[key] = (value as Term[]).map(copyTerm)
      else if (key === 'key' || key === 'value') copy[key] = copyTerm(value as Term)
      else copy[key] = value
    }
    const head = copy as unknown as Head
    if (head.args) head.args = head.args.map((a) => this.renameWildcards(a))
    head.location = loc
    this.advance()
    if (generated) {
      head.generatedValue = true
      head.value = { type: 'boolean', value: true }
    } else if (k === T.Assign || k === T.Unify) {
      if (k === T.Assign) head.assign = true
      this.advance()
      head.value = this.parseInExpr(true)
      head.location = this.span(loc)
    } else {
      this.unexpected('expected else value term or rule body')
    }
    let body: Body
    let generatedBody = false
    if (this.peek() !== T.If && this.peek() !== T.LBrace) {
      body = [trueExpr(loc)]
      generatedBody = true
    } else {
      if (this.peek() === T.If) {
        head.keywords = { if: true, contains: false }
        this.advance()
      }
      if (this.peek() === T.LBrace) {
        this.advance()
        body = this.parseBody()
      } else if (this.peek() !== T.EOF) {
        body = [this.parseLiteral()]
      } else {
        this.unexpected('rule body expected')
      }
    }
    const next = this.peek() === T.Else && !this.keywordStartsRef() ? this.parseElse(original) : undefined
    // The head starts where the branch starts: an `else := v` without a body shares its location.
    const location = this.span(head.location ?? loc)
    if (next) {
      return generatedBody
        ? { type: 'rule', head, body, location, generatedBody: true, else: next }
        : { type: 'rule', head, body, location, else: next }
    }
    return generatedBody
      ? { type: 'rule', head, body, location, generatedBody: true }
      : { type: 'rule', head, body, location }
  }

  private renameWildcards(term: Term): Term {
    if (term.type === 'var' && term.value.startsWith('$')) return this.freshWildcard(term.location)
    return term
  }

  /** Default rules need a constant value and plain, distinct var arguments (as OPA checks). */
  private validateDefault(head: Head, location: Location): void {
    const value = head.value
    // `default a` has the generated value `true`; `default a[0]` has none.
    if (!value) this.fail('illegal default rule (must have a value)', location)
    const bad = findNonConstant(value)
    if (bad) this.fail(`illegal default rule (value cannot contain ${bad})`, location)
    const seen = new Set<string>()
    for (const arg of head.args ?? []) {
      if (arg.type !== 'var')
        this.fail(`illegal default rule (arguments cannot contain ${arg.type})`, location)
      if (seen.has(arg.value))
        this.fail(`illegal default rule (arguments cannot be repeated ${arg.value})`, location)
      seen.add(arg.value)
    }
  }

  /**
   * Rego v1 requires a value or a body on every rule (`p.q.r` alone is refused), `if` before every
   * written body and `contains` for multi-value rules.
   */
  private checkV1Keywords(rules: Rule[]): void {
    const check = (rule: Rule) => {
      const at = rule.location as Location
      const what = rule.head.args ? 'function' : 'rule'
      // A bare call (`f(x)`) is a function returning true: OPA's rule-from-call does not mark its
      // body as generated, so only `p.q.r` alone is refused.
      if (!rule.default && !rule.head.args && rule.generatedBody && rule.head.generatedValue) {
        this.errors.push(
          parseError(at, 'rule must have value assignment and/or body declaration', this.source.excerpt(at)),
        )
      }
      if (!rule.default && !rule.generatedBody && !rule.head.keywords?.if) {
        this.errors.push(
          parseError(at, `\`if\` keyword is required before ${what} body`, this.source.excerpt(at)),
        )
      }
      if (rule.head.key && rule.head.value === undefined && !rule.head.keywords?.contains) {
        this.errors.push(
          parseError(at, '`contains` keyword is required for partial set rules', this.source.excerpt(at)),
        )
      }
      if (rule.else) check(rule.else)
    }
    for (const rule of rules) check(rule)
  }
}

function trueExpr(location: Location): Expr {
  return { type: 'expr', index: 0, terms: { type: 'boolean', value: true, location }, location }
}

/**
 * True when the body's first expression starts with `term |`, which OPA reads as the head of a
 * set comprehension (`p if {a | b}`, `p if {y | y := input.x}`): a union on the left edge of the
 * expression, not inside parentheses. A negated expression cannot be a comprehension's head:
 * `not (a | b)` stays a literal.
 */
function isAmbiguousUnion(body: Body): boolean {
  const first = body[0]
  if (!first || first.negated || !Array.isArray(first.terms)) return false
  return leftEdgeHasUnion(first.terms) && !(locationText(first.location) ?? '').trimStart().startsWith('(')
}

/** Walks the left operands of infix calls (`a | b == c` is `==(|(a, b), c)`) looking for `|`. */
function leftEdgeHasUnion(call: Term[]): boolean {
  const [op, left] = call
  const symbol = op ? locationText(op.location) : undefined
  if (symbol === '|') return true
  // A named call (`count(x)`) ends the left edge; only operators written between operands go on.
  if (!symbol || /^[A-Za-z_]/.test(symbol)) return false
  if (left?.type !== 'call' || (locationText(left.location) ?? '').startsWith('(')) return false
  return leftEdgeHasUnion(left.value)
}

/** True when the term holds no vars, refs or calls (outside comprehensions). */
export function isGround(term: Term): boolean {
  switch (term.type) {
    case 'var':
      return false
    case 'ref':
      return term.value.slice(1).every(isGround)
    case 'array':
    case 'set':
    case 'call':
      return term.value.every(isGround)
    case 'object':
      return term.value.every(([k, v]) => isGround(k) && isGround(v))
    case 'templatestring':
      return false
    default:
      return true
  }
}

function findNonConstant(term: Term): string | undefined {
  switch (term.type) {
    case 'ref':
    case 'var':
    case 'call':
      return term.type
    case 'array':
    case 'set':
      for (const t of term.value) {
        const bad = findNonConstant(t)
        if (bad) return bad
      }
      return undefined
    case 'object':
      for (const [k, v] of term.value) {
        const bad = findNonConstant(k) ?? findNonConstant(v)
        if (bad) return bad
      }
      return undefined
    default:
      return undefined
  }
}

/** Gives every location inside `head` the location `loc` (OPA does this for chained bodies). */
function relocate<N extends object>(node: N, loc: Location): N {
  const visit = (x: unknown) => {
    if (Array.isArray(x)) {
      for (const y of x) visit(y)
      return
    }
    if (x === null || typeof x !== 'object') return
    const obj = x as Record<string, unknown>
    if ('location' in obj && obj.location) obj.location = loc
    for (const [key, value] of Object.entries(obj)) if (key !== 'location') visit(value)
  }
  visit(node)
  return node
}

/** How a rule head's ref reads in messages (`a.b[c]`). */
function refText(head: Head): string {
  return head.ref
    .map((t, i) => (i === 0 ? termText(t) : t.type === 'string' ? `.${t.value}` : `[${termText(t)}]`))
    .join('')
}

function termText(term: Term): string {
  return (
    locationText(term.location) ?? (term.type === 'var' || term.type === 'string' ? term.value : term.type)
  )
}

/**
 * Parses a module. Throws `RegoErrors` (all `rego_parse_error`) when it does not parse.
 *
 * @example
 * const mod = parseModule('package a\n\nallow if input.user == "alice"\n', { file: 'a.rego' })
 */
export function parseModule(text: string, options: ParseOptions = {}): Module {
  const { module, errors } = parseModuleWithErrors(text, options)
  if (!module) throw new RegoErrors(errors)
  return module
}

/** Parses a module without throwing: the module (when there were no errors) and the errors. */
export function parseModuleWithErrors(text: string, options: ParseOptions = {}): ModuleParseResult {
  return new ModuleParser(text, options).parseModuleResult()
}
