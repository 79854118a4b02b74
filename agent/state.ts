/**
 * What a `regent run -s` server holds: the policy modules (by id, with their text), the base data
 * document, the bundles loaded at start, and the compiled policy the queries run on. Every change
 * is checked first (parse, compile, data/rule conflicts, bundle ownership) and then swapped in as
 * a whole, so a failed write leaves the server as it was and a running query keeps its snapshot.
 */
import { badRequest } from '../core/http/index.js'
import { compilePolicy } from '../core/rego/eval/policy.js'
import {
  type Module,
  type Policy,
  type PreparedQuery,
  parseModule,
  type RegoError,
} from '../core/rego/index.js'
import type { ObjectValue, Value } from '../core/rego/values/index.js'
import { dataConflicts, ownershipConflict } from './conflicts.js'
import { applyWrite, type DataWrite, makeDir, readPath, StorageError } from './data-tree.js'
import { storagePathText } from './paths.js'

/** A policy module as stored: its id (`PUT /v1/policies/{id}`), its text and its parsed form. */
export interface StoredPolicy {
  id: string
  raw: string
  module: Module
}

/** A bundle loaded with `-b`: OPA names it by the path it was given. */
export interface ActiveBundle {
  name: string
  revision: string
  /** Manifest roots (`''` owns all of data). */
  roots: string[]
  /** When it was activated (RFC 3339), for `/v1/status`. */
  activatedAt: string
}

/** How modules are parsed and compiled. */
export interface StateOptions {
  regoVersion: 'v0' | 'v1'
  /** Compile errors reported before stopping (`-m/--max-errors`, default 10). */
  maxErrors?: number
}

// OPA keeps up to 100 prepared queries for the data API (pqMaxCacheSize).
const PREPARED_CACHE_SIZE = 100

/** The server's policies and data; see the file comment. */
export class ServerState {
  #bundles: readonly ActiveBundle[]
  readonly options: StateOptions
  #policies: Map<string, StoredPolicy>
  #data: ObjectValue
  #policy: Policy
  #modules: readonly Module[]
  #prepared = new Map<string, PreparedQuery>()
  readonly #listeners: Array<() => void> = []

  /** Compiles the initial policies and data; throws `RegoErrors` when they do not compile. */
  constructor(
    initial: { policies: StoredPolicy[]; data: ObjectValue; bundles: ActiveBundle[] },
    options: StateOptions,
  ) {
    this.options = options
    this.#bundles = initial.bundles
    this.#policies = new Map(initial.policies.map((p) => [p.id, p]))
    this.#data = initial.data
    this.#policy = this.#compile(this.#policies, initial.data)
    this.#modules = [...this.#policies.values()].map((p) => p.module)
  }

  /** The active bundles (loaded at start, or downloaded and activated since). */
  get bundles(): readonly ActiveBundle[] {
    return this.#bundles
  }

  /**
   * Replaces policies, data and bundles as one change (a downloaded bundle set activated).
   * Compiled first: when it fails nothing changes and the error is thrown (`RegoErrors`).
   */
  activate(next: { policies: StoredPolicy[]; data: ObjectValue; bundles: ActiveBundle[] }): void {
    const policies = new Map(next.policies.map((p) => [p.id, p]))
    const policy = this.#compile(policies, next.data)
    this.#policies = policies
    this.#data = next.data
    this.#bundles = next.bundles
    this.#policy = policy
    this.#modules = [...policies.values()].map((p) => p.module)
    this.#prepared = new Map()
    for (const listener of this.#listeners) listener()
  }

  /** The compiled policy queries run on (replaced on every policy change). */
  get policy(): Policy {
    return this.#policy
  }

  /** The base data document. */
  get data(): ObjectValue {
    return this.#data
  }

  /** The parsed modules; the same array until the policies change (compile caches key on it). */
  modules(): readonly Module[] {
    return this.#modules
  }

  /**
   * Calls `listener` after every accepted change of the policies or the data (the compile
   * endpoint's backend recompiles from {@link ServerState.modulesById} and {@link ServerState.data}).
   */
  onChange(listener: () => void): void {
    this.#listeners.push(listener)
  }

  /** The parsed modules by id, as a compiler takes them. */
  modulesById(): Map<string, Module> {
    return new Map([...this.#policies].map(([id, p]) => [id, p.module]))
  }

  /** Stored policies sorted by id. */
  listPolicies(): StoredPolicy[] {
    return [...this.#policies.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  }

  /** One stored policy, or undefined. */
  getPolicy(id: string): StoredPolicy | undefined {
    return this.#policies.get(id)
  }

  /**
   * A query prepared against the current policy, from a small cache (cleared when the policies
   * change). Throws `RegoErrors` when the query does not compile.
   */
  prepare(text: string): { query: PreparedQuery; cached: boolean } {
    const hit = this.#prepared.get(text)
    if (hit) {
      // Re-insert so the map's order stays least-recently-used first.
      this.#prepared.delete(text)
      this.#prepared.set(text, hit)
      return { query: hit, cached: true }
    }
    const query = this.#policy.prepare(text)
    if (this.#prepared.size >= PREPARED_CACHE_SIZE) {
      const oldest = this.#prepared.keys().next().value
      if (oldest !== undefined) this.#prepared.delete(oldest)
    }
    this.#prepared.set(text, query)
    return { query, cached: false }
  }

  /** Parses a module as this server does (file name = id). Throws `RegoErrors`. */
  parseModule(id: string, raw: string): Module {
    return parseModule(raw, { file: id, regoVersion: this.options.regoVersion })
  }

  /**
   * Creates or replaces a policy. Resolves to false when the text is unchanged (nothing compiled).
   * @throws RegoErrors parse or compile errors (including data conflicts); HttpError 400 when a
   * bundle owns the package.
   */
  putPolicy(id: string, raw: string): boolean {
    const existing = this.#policies.get(id)
    if (existing?.raw === raw) return false
    if (existing) this.#checkPackageScope(existing.module)
    const module = this.parseModule(id, raw)
    this.#checkPackageScope(module)
    const next = new Map(this.#policies)
    next.set(id, { id, raw, module })
    this.#swapPolicies(next)
    return true
  }

  /**
   * Deletes a policy.
   * @throws StorageError not_found; HttpError 400 when a bundle owns it; RegoErrors when the
   * remaining modules no longer compile (another module imported it).
   */
  deletePolicy(id: string): void {
    const existing = this.#policies.get(id)
    if (!existing) throw new StorageError('not_found', `policy id ${JSON.stringify(id)}`)
    this.#checkPackageScope(existing.module)
    const next = new Map(this.#policies)
    next.delete(id)
    this.#swapPolicies(next)
  }

  /**
   * Applies writes in order as one change (PATCH). Nothing changes when any of them fails.
   * @throws HttpError 400 (bundle ownership, data/rule conflicts), StorageError.
   */
  writeData(writes: readonly DataWrite[]): void {
    let data = this.#data
    for (const write of writes) {
      this.#checkPathScope(write.path)
      data = applyWrite(data, write)
    }
    this.#swapData(data)
  }

  /**
   * PUT: writes `value` at `path`, creating missing parent objects. Resolves to false (and writes
   * nothing) when `ifNoneMatch` is set and a value already exists there (OPA answers 304).
   */
  putData(path: readonly string[], value: Value, ifNoneMatch: boolean): boolean {
    this.#checkPathScope(path)
    let data = this.#data
    if (readPath(data, path) !== undefined) {
      if (ifNoneMatch) return false
    } else if (path.length > 0) {
      data = makeDir(data, path.slice(0, -1))
    }
    this.#swapData(applyWrite(data, { op: 'add', path, value }))
    return true
  }

  /** DELETE: removes the value at `path`. @throws StorageError not_found, HttpError 400. */
  deleteData(path: readonly string[]): void {
    this.#checkPathScope(path)
    if (readPath(this.#data, path) === undefined) {
      throw new StorageError('not_found', `${storagePathText(path)}: document does not exist`)
    }
    this.#swapData(applyWrite(this.#data, { op: 'remove', path }))
  }

  /**
   * `--watch`: replaces the policies loaded from files (`previousIds`) by `policies` and the base
   * data by `data`, keeping what bundles own, as one change.
   * @throws RegoErrors when the result does not compile; nothing changes then.
   */
  replaceFiles(previousIds: readonly string[], policies: readonly StoredPolicy[], data: ObjectValue): void {
    const next = new Map(this.#policies)
    for (const id of previousIds) next.delete(id)
    for (const p of policies) next.set(p.id, p)
    let merged = data
    for (const root of this.bundles.flatMap((b) => b.roots)) {
      const path = root.split('/').filter((s) => s !== '')
      const owned = readPath(this.#data, path)
      if (path.length === 0) merged = this.#data
      else if (owned !== undefined) {
        merged = applyWrite(makeDir(merged, path.slice(0, -1)), { op: 'add', path, value: owned })
      }
    }
    const policy = this.#compile(next, merged)
    this.#policies = next
    this.#data = merged
    this.#policy = policy
    this.#modules = [...next.values()].map((p) => p.module)
    this.#prepared = new Map()
    for (const listener of this.#listeners) listener()
  }

  #compile(policies: Map<string, StoredPolicy>, data: ObjectValue): Policy {
    // The compiler refuses rules where the data holds a value (conflicting rule for data path).
    return compilePolicy(new Map([...policies].map(([id, p]) => [id, p.module])), data, {
      enablePrintStatements: true,
      ...(this.options.maxErrors !== undefined ? { maxErrors: this.options.maxErrors } : {}),
    })
  }

  #swapPolicies(next: Map<string, StoredPolicy>): void {
    const policy = this.#compile(next, this.#data)
    this.#policies = next
    this.#policy = policy
    this.#modules = [...next.values()].map((p) => p.module)
    this.#prepared = new Map()
    for (const listener of this.#listeners) listener()
  }

  #swapData(data: ObjectValue): void {
    const conflicts = dataConflicts(this.#policy.compiler.ruleTree, data)
    if (conflicts.length > 0) {
      throw badRequest(
        errorsText(conflicts),
        conflicts.map((e) => e.toJSON()),
      )
    }
    this.#data = data
    // NOTE(run): prepared queries read `policy.data` when an evaluation starts, so swapping it
    // here is seen by the next query without recompiling the modules.
    this.#policy.data = data
    for (const listener of this.#listeners) listener()
  }

  #checkPackageScope(module: Module): void {
    const path = module.package.path.slice(1).map((t) => (t.type === 'string' ? t.value : ''))
    this.#checkPathScope(path)
  }

  #checkPathScope(path: readonly string[]): void {
    const conflict = ownershipConflict(path, this.bundles)
    if (conflict) throw badRequest(conflict)
  }
}

/** Errors as OPA's `ast.Errors.Error()` words them: `1 error occurred: file:row: code: message`. */
function errorsText(errors: readonly RegoError[]): string {
  const one = (e: RegoError) => {
    const loc = e.location
    const at = loc ? (loc.file ? `${loc.file}:${loc.row}: ` : `${loc.row}:${loc.col}: `) : ''
    return `${at}${e.code}: ${e.message}`
  }
  if (errors.length === 1) return `1 error occurred: ${one(errors[0] as RegoError)}`
  return `${errors.length} errors occurred:\n${errors.map(one).join('\n')}`
}
