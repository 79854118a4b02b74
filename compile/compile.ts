/**
 * The compile pipeline: one request in, one response body out. It reads the request, finds unknowns
 * and the mask rule (request first, then annotations, then the spec's default `[input]`), negotiates the
 * target, asks the backend for partial evaluation, checks the residual against every target's fragment,
 * translates it to UCAST and SQL, evaluates masks, and shapes the answer. Errors are checked in the
 * reference's order (details §13).
 */
import type { RefTerm } from '../core/rego/syntax/ast.js'
import { RequestMetrics } from '../core/request-metrics.js'
import { negotiateAccept } from './accept.js'
import { AnnotationCache } from './annotation-cache.js'
import {
  type AnnotationMaskRule,
  type AnnotationUnknowns,
  maskRuleFromAnnotations,
  unknownsFromAnnotations,
} from './annotations.js'
import { backendFailure, evaluationError, internalFailure, invalidParameter } from './errors.js'
import { checkFragments } from './fragments/check.js'
import { ConstraintSet } from './fragments/constraints.js'
import { hintsFor } from './hints.js'
import { lookupMappings, shortNames } from './mappings.js'
import { evaluateMasks, resolveRequestMaskRule } from './masks.js'
import { refToString } from './print.js'
import { parseRefText, pathToRef, RefSyntaxError } from './refs.js'
import { type CompileBody, decodeCompileBody, parseUnknowns } from './request.js'
import {
  type CompileResponseBody,
  multiTargetResult,
  type TargetResult,
  targetResult,
  withExtras,
} from './response.js'
import { renderSql, SqlRenderError } from './sql/index.js'
import { parseTargetDialects, resultKey } from './targets.js'
import type {
  CompileBackend,
  JsonObject,
  PartialEvaluationResult,
  SqlDialect,
  Target,
  Unconfirmed,
} from './types.js'
import { queriesToUcast } from './ucast.js'

/** A compile request as the route hands it over. */
export interface CompileInput {
  /** The rule path after `/v1/compile/` (still percent-encoded), or undefined on `POST /v1/compile`. */
  path: string | undefined
  /** The `Accept` header. */
  accept: string | undefined
  /** The `Content-Type` header ('' when absent). */
  contentType: string
  /** The body text (already inflated). */
  bodyText: string
  /** `?metrics` or `?instrument` was given. */
  metrics: boolean
}

/** A successful answer: the media type to send and the body. */
export interface CompileOutput {
  mediaType: string
  body: CompileResponseBody
  /** The residual came from a template not yet confirmed (a templates-only backend; see types.ts). */
  unconfirmed?: Unconfirmed
}

const DEFAULT_UNKNOWNS: RefTerm[] = [{ type: 'ref', value: [{ type: 'var', value: 'input' }] }]
/** Entries of each per-text cache below; past it the cache starts over (hostile clients vary texts). */
const MAX_CACHED_TEXTS = 256

/** A small cache of what is parsed from request texts, bounded by starting over when full. */
class TextCache<T> {
  readonly #entries = new Map<string, T>()

  get(text: string, make: () => T): T {
    let value = this.#entries.get(text)
    if (value === undefined) {
      value = make()
      if (this.#entries.size >= MAX_CACHED_TEXTS) this.#entries.clear()
      this.#entries.set(text, value)
    }
    return value
  }
}

/** The compile endpoint's logic over one backend, with its annotation caches. */
export class CompileService {
  readonly unknownsCache = new AnnotationCache<AnnotationUnknowns>()
  readonly maskRuleCache = new AnnotationCache<AnnotationMaskRule>()
  // Parsed once per text: the same rule path and unknowns come with every request of a client,
  // and one array of unknowns per text lets the engine keep what it derives from them.
  readonly #paths = new TextCache<{ queryText: string; filterRule: RefTerm }>()
  readonly #unknowns = new TextCache<RefTerm[]>()

  constructor(private readonly backend: CompileBackend) {}

  /** Forgets cached annotation look-ups (also happens by itself when the backend's modules change). */
  purgeCaches(): void {
    this.unknownsCache.purge()
    this.maskRuleCache.purge()
  }

  /**
   * Answers one request.
   * @throws CompileFailure with the status and OPA envelope to answer.
   */
  async compile(req: CompileInput): Promise<CompileOutput> {
    const timers = new RequestMetrics()
    timers.start('timer_server_handler_ns')
    timers.start('timer_rego_query_parse_ns')
    const body = decodeCompileBody(req.bodyText, req.contentType)
    const { queryText, filterRule } = this.#query(req.path, body)
    const texts = body.unknowns
    const requestUnknowns = texts
      ? this.#unknowns.get(JSON.stringify(texts), () => parseUnknowns(texts))
      : undefined
    const requestMaskRule = body.maskRule ? resolveRequestMaskRule(body.maskRule, filterRule) : undefined
    timers.stop('timer_rego_query_parse_ns')

    const cacheKey = req.path ?? `query:${queryText}`
    const unknowns =
      requestUnknowns ?? this.#annotationUnknowns(filterRule, cacheKey, timers) ?? DEFAULT_UNKNOWNS
    const maskRule = requestMaskRule ?? this.#annotationMaskRule(filterRule, cacheKey, timers)

    const format = negotiateAccept(req.accept)
    let targets: Target[]
    if (format.kind === 'multi') {
      targets = parseTargetDialects(body.targetDialects)
      if (targets.length === 0) {
        return {
          mediaType: format.mediaType,
          body: withExtras({ result: {} }, [], req.metrics ? timers.all() : undefined),
        }
      }
    } else {
      targets = format.kind === 'single' ? [format.target] : []
    }

    // OPA reports preparing the partial query and resolving external data sources as stages of their
    // own (its metrics test pins the key set); regent prepares the request here and has no external
    // resolvers, so the second stage is empty, timed for clients that read OPA's set of timers.
    timers.start('timer_compile_prep_partial_ns')
    const request = {
      query: queryText,
      input: body.input,
      unknowns,
      disableInlining: body.disableInlining,
      nondeterministicBuiltins: format.kind === 'ast' ? body.nondeterministicBuiltins : true,
    }
    timers.stop('timer_compile_prep_partial_ns')
    timers.time('timer_rego_external_resolve_ns', () => undefined)

    timers.start('timer_rego_partial_eval_ns')
    let partial: PartialEvaluationResult
    try {
      partial = await this.backend.partialEvaluate(request)
    } catch (err) {
      throw backendFailure(err, 'partial eval')
    }
    timers.stop('timer_rego_partial_eval_ns')
    timers.merge(partial.metrics)
    const hints = hintsFor(partial.failedExpressions ?? [], unknowns)
    const unconfirmed = partial.unconfirmed ? { unconfirmed: partial.unconfirmed } : {}

    if (format.kind === 'ast') {
      const result = this.backend.toAstJson(partial)
      return {
        mediaType: format.mediaType,
        body: withExtras({ result }, hints, req.metrics ? timers.all() : undefined),
        ...unconfirmed,
      }
    }

    timers.start('timer_compile_eval_constraints_ns')
    const fragmentErrors = checkFragments(partial.queries, {
      constraints: new ConstraintSet(targets),
      shortNames: shortNames(body.targetSQLTableMappings),
      support: partial.support,
    })
    if (fragmentErrors.length > 0) throw evaluationError(fragmentErrors)
    timers.stop('timer_compile_eval_constraints_ns')

    timers.start('timer_compile_translate_queries_ns')
    const queries = new Map<'ucast' | SqlDialect, TargetResult['query'] | null>()
    for (const target of targets) {
      const key = resultKey(target)
      // One UCAST answer in multitarget: the first ucast tuple's (its mappings), every tuple's checks.
      if (queries.has(key)) continue
      queries.set(key, this.#translate(partial, target, body))
    }
    timers.stop('timer_compile_translate_queries_ns')

    const never = [...queries.values()].every((q) => q === null)
    let masks: JsonObject | undefined
    if (maskRule && !never) {
      timers.start('timer_compile_eval_mask_rule_ns')
      masks = await evaluateMasks((r) => this.backend.evaluate(r), maskRule, body.input)
      timers.stop('timer_compile_eval_mask_rule_ns')
    }

    let result: CompileResponseBody['result']
    if (format.kind === 'multi') {
      const results = new Map<'ucast' | SqlDialect, TargetResult>()
      for (const [key, query] of queries) if (query !== null) results.set(key, targetResult(query, masks))
      result = multiTargetResult(results)
    } else {
      const query = [...queries.values()][0]
      result = query === null || query === undefined ? undefined : targetResult(query, masks)
    }
    timers.stop('timer_server_handler_ns')
    const out: CompileResponseBody = result === undefined ? {} : { result }
    return {
      mediaType: format.mediaType,
      body: withExtras(out, hints, req.metrics ? timers.all() : undefined),
      ...unconfirmed,
    }
  }

  /** The query text and, when it is a plain ref, the filter rule's ref. */
  #query(
    path: string | undefined,
    body: CompileBody,
  ): { queryText: string; filterRule: RefTerm | undefined } {
    if (path !== undefined) {
      return this.#paths.get(path, () => {
        try {
          const ref = pathToRef(path)
          return { queryText: refToString(ref.value), filterRule: ref }
        } catch (err) {
          throw invalidParameter(`invalid path: ${(err as Error).message}`)
        }
      })
    }
    const text = body.query?.trim()
    if (!text)
      throw invalidParameter("missing required 'query' (in the body, or as the path /v1/compile/{path})")
    try {
      return { queryText: text, filterRule: parseRefText(text) }
    } catch (err) {
      if (err instanceof RefSyntaxError) return { queryText: text, filterRule: undefined }
      throw err
    }
  }

  #annotationUnknowns(ref: RefTerm | undefined, key: string, timers: RequestMetrics): RefTerm[] | undefined {
    if (!ref) return undefined
    const modules = this.backend.modules()
    const { value } = this.unknownsCache.get(modules, key, () => {
      timers.start('timer_compile_extract_annotations_unknowns_ns')
      const found = unknownsFromAnnotations(modules, ref)
      timers.stop('timer_compile_extract_annotations_unknowns_ns')
      return { value: found, store: !('errors' in found) }
    })
    if ('errors' in value) throw evaluationError(value.errors)
    return value.unknowns.length > 0 ? value.unknowns : undefined
  }

  #annotationMaskRule(ref: RefTerm | undefined, key: string, timers: RequestMetrics): RefTerm | undefined {
    if (!ref) return undefined
    const modules = this.backend.modules()
    const { value } = this.maskRuleCache.get(modules, key, () => {
      timers.start('timer_compile_extract_annotations_mask_ns')
      const found = maskRuleFromAnnotations(modules, ref)
      timers.stop('timer_compile_extract_annotations_mask_ns')
      return { value: found, store: !('errors' in found) }
    })
    if ('errors' in value) throw evaluationError(value.errors)
    return value.maskRule
  }

  /** One target's query: a UCAST object or SQL string, or null when the filter never matches. */
  #translate(
    partial: PartialEvaluationResult,
    target: Target,
    body: CompileBody,
  ): TargetResult['query'] | null {
    const mappings = lookupMappings(body.targetSQLTableMappings, target)
    const decision = queriesToUcast(partial.queries, mappings)
    if (decision.kind === 'never') return null
    const node = decision.kind === 'always' ? undefined : decision.node
    if (target.kind === 'ucast') return node ?? {}
    try {
      return renderSql(node, target.dialect)
    } catch (err) {
      if (err instanceof SqlRenderError) throw internalFailure(`convert to queries: ${err.message}`)
      throw err
    }
  }
}
