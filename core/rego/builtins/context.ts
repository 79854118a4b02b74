/**
 * What a built-in may use from the query that calls it. The evaluator builds one context per
 * query (so `time.now_ns`, `uuid.rfc4122` and `http.send` answer the same within a query) and
 * passes it to every call.
 */

import type { AsyncOutcome } from '../eval/async-outcome.js'
import type { Location } from '../syntax/ast.js'
import type { Value } from '../values/index.js'

/** A cache shared by the queries of one process (http.send `force_cache`, `cache` options). */
export interface InterQueryCache {
  get(key: string): { value: Value; expiresAt: number } | undefined
  set(key: string, entry: { value: Value; expiresAt: number }): void
  delete(key: string): void
}

/** Metadata the compiler collected for the rule that holds a call (rego.metadata.*). */
export interface RegoMetadata {
  /** The chain of annotations from the rule up to the package (`rego.metadata.chain()`). */
  chain: Value
  /** The rule's own annotations (`rego.metadata.rule()`), `{}` when it has none. */
  rule: Value
}

/** The per-query context every built-in receives. */
export interface BuiltinContext {
  /** Query start, in nanoseconds since the Unix epoch, captured once per query. */
  readonly timeNs: bigint
  /**
   * Per-query cache. Keys start with the built-in's name; values are whatever it stores. The
   * evaluator creates a fresh Map per query.
   */
  readonly cache: Map<string, unknown>
  /** Cross-query cache for http.send; absent means no caching across queries. */
  readonly interQueryCache?: InterQueryCache
  /**
   * Hosts built-ins may reach (capabilities `allow_net`): undefined allows every host, an empty
   * list forbids the network (http.send and net.lookup_ip_addr fail).
   */
  readonly allowNet?: readonly string[]
  /**
   * Folders whose files built-ins may open (sql.send's SQLite databases): undefined allows every
   * file, an empty list none.
   */
  readonly allowFiles?: readonly string[]
  /** True with `--strict-builtin-errors`; built-ins themselves rarely need it. */
  readonly strictBuiltinErrors: boolean
  /** Uniform random numbers in [0, 1) (`rand.intn`, `uuid.rfc4122`); seedable for tests. */
  readonly random: () => number
  /** Aborted when the query is cancelled or times out; long built-ins (http.send) stop. */
  readonly signal?: AbortSignal
  /** Where `print` output goes (OPA writes to stderr). */
  readonly print: (message: string, location?: Location) => void
  /**
   * Receives each case of a parameterized test as `regent test` evaluates it (the array of its
   * head-ref keys, from `internal.test_case`, which the compiler injects with `tests: true`).
   */
  readonly testCase?: (cases: Value) => void
  /** Receives `trace(note)` notes when tracing is on. */
  readonly trace?: (message: string, location?: Location) => void
  /** rego.metadata.chain/rule for the rule containing the call at `location`. */
  readonly regoMetadata?: (location?: Location) => RegoMetadata | undefined
  /** Parses a module into OPA's AST JSON (rego.parse_module); throws with the parser's message. */
  readonly parseModule?: (filename: string, text: string) => Value
  /** The value of `opa.runtime()` (config, environment, version). */
  readonly runtime?: Value
  /** Default http.send timeout in ms (OPA: 5s, `http.send` `timeout` overrides). */
  readonly httpTimeoutMs?: number
}

/**
 * The evaluation that calls a built-in, for the few built-ins that run a query of their own against
 * the caller's policy (`rego.compile` of `regent test`): what that query must start from so that the
 * caller's `with input… as` and `with data… as` apply to it too.
 */
export interface BuiltinCaller {
  /** The caller's compiled policy (core/rego/eval/policy.ts `Policy` for every public entry point). */
  readonly policy: object
  /** `input` with the caller's `with input… as` applied. */
  readonly input: Value | undefined
  /** The data document with the caller's `with data… as` applied, and their paths. */
  readonly overrides: DataOverrides
  /** Results of asynchronous built-ins known to the caller's attempt (eval/calls.ts). */
  readonly asyncResults: Map<string, AsyncOutcome> | undefined
  /** The caller's deadline in ms since the epoch (0: none). */
  readonly deadline: number
}

/** `with data… as` in force: the data document with them applied, and the paths they replace. */
export interface DataOverrides {
  readonly data: Value
  readonly targets: readonly (readonly Value[])[]
}

/** Options for {@link createBuiltinContext}; everything is optional. */
export type BuiltinContextOptions = Partial<Omit<BuiltinContext, 'timeNs' | 'cache'>> & {
  /** Query start time in ns; default: now. */
  timeNs?: bigint
}

// Wall clock at load, in ns, minus the monotonic clock at load: adding the monotonic clock later
// gives wall-clock time with nanosecond resolution.
const EPOCH_OFFSET_NS = BigInt(Date.now()) * 1_000_000n - process.hrtime.bigint()

/** The current time in nanoseconds since the Unix epoch. */
export function nowNs(): bigint {
  return EPOCH_OFFSET_NS + process.hrtime.bigint()
}

/**
 * A context with sensible defaults: time captured now, a fresh cache, Math.random, print to
 * stderr, network allowed.
 *
 * @example
 * const ctx = createBuiltinContext({ allowNet: [] }) // a query that may not use the network
 */
export function createBuiltinContext(options: BuiltinContextOptions = {}): BuiltinContext {
  return {
    strictBuiltinErrors: false,
    random: Math.random,
    print: (message) => process.stderr.write(`${message}\n`),
    ...options,
    timeNs: options.timeNs ?? nowNs(),
    cache: new Map(),
  }
}

/**
 * A deterministic random source (mulberry32) for reproducible tests and `--seed`-like options.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let x = a
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}
