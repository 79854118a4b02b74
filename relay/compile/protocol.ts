/**
 * What the relay's compile pool (compile-pool.ts) and its workers (compile-worker.ts) exchange,
 * besides the compile requests and answers themselves (compile/answer.ts).
 */

/** The served bundles, sent to every worker whenever the served set changes. */
export interface ServedState {
  /** Bundle names, in the order of `bytes`. */
  names: string[]
  /** Each bundle's tarball as served to agents (verified, promoted). */
  bytes: Uint8Array[]
  /** The relay's `relay.bundles.max_inflated_bytes` (core/bundle's default when absent). */
  maxInflatedBytes?: number
}

/** A worker's report after loading a ServedState: how many modules, or why it failed. */
export interface LoadReport {
  modules: number
  error?: string
}

/** What a compile worker is started with. */
export interface CompileWorkerData {
  /** Hosts network-reaching built-ins may reach (`relay.compile.allow_net`). */
  allowNet: string[]
  /** Units of work per request (`relay.compile.instruction_limit`; 0: none). */
  instructionLimit: number
}
