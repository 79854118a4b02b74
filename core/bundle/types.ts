/**
 * The typed bundle shared by the relay (verifies and serves), the service (builds and signs) and
 * the CLI (`regent build`, `sign`, `inspect`). Field names follow OPA's `.manifest` JSON so a
 * manifest round-trips without renaming.
 */

/** `.manifest` contents; unknown keys are kept so newer OPA fields survive a round trip. */
export interface BundleManifest {
  revision?: string
  roots?: string[]
  wasm?: unknown[]
  rego_version?: number
  file_rego_versions?: Record<string, number>
  metadata?: Record<string, unknown>
  [key: string]: unknown
}

/** A Rego module; `path` is the slash path inside the bundle, e.g. `authz/policy.rego`. */
export interface BundleModule {
  path: string
  source: string
  raw: Uint8Array
}

/** A `data.json` / `data.yaml` / `data.yml` file; raw bytes are kept for hashing. */
export interface BundleDataFile {
  path: string
  raw: Uint8Array
}

/** Any other file the bundle carries (`policy.wasm`, `plan.json`, READMEs, ...). */
export interface BundleFile {
  path: string
  raw: Uint8Array
}

/** One operation of a delta bundle's `patch.json`. */
export interface PatchOperation {
  op: 'upsert' | 'replace' | 'remove'
  path: string
  value?: unknown
}

/** A bundle in memory. */
export interface Bundle {
  /** Defaults applied: `roots` is `['']` when the file does not say. */
  manifest: BundleManifest
  modules: BundleModule[]
  dataFiles: BundleDataFile[]
  /** The merged data tree (numbers as `JSON.parse` gives them). */
  data: Record<string, unknown>
  files: BundleFile[]
  signatures?: { signatures: string[] }
  patch?: { data: PatchOperation[] }
  /**
   * The `.manifest` bytes as read. Writing reuses them while `manifest` still parses to the same
   * value, so a read-then-write keeps the manifest digest (and an existing signature) valid.
   */
  manifestRaw?: Uint8Array
}

/** A regular file of a tarball or directory, its path normalised (no leading `/` or `./`). */
export interface BundleEntry {
  path: string
  raw: Uint8Array
}

/** Limits and options for `readBundle`. */
export interface ReadOptions {
  /** Largest size of one file, default 1 GiB as OPA's `size_limit_bytes`. */
  sizeLimitBytes?: number
  /** Largest number of archive entries (any type), default 100,000. */
  maxEntries?: number
  /**
   * Largest inflated size of a whole tarball (every entry and tar header), default 64 MiB: a gzip
   * bomb is refused at the header that declares too much, or as soon as inflating passes it.
   */
  maxInflatedBytes?: number
  /** Directory input only: basename globs to skip (as `--ignore`). */
  ignore?: string[]
  /** Directory input only: follow symbolic links instead of ignoring them. */
  followSymlinks?: boolean
  /** When given, snapshot bundles are verified as OPA does before `readBundle` resolves. */
  verification?: VerificationConfig
}

/** How to sign: OPA's `--signing-key`, `--signing-alg`, key id, scope and `--claims-file`. */
export interface SigningOptions {
  /** PEM private key (PKCS#8, PKCS#1 or SEC1) or HMAC secret. */
  key: string | Uint8Array
  /** JWS algorithm, default RS256. */
  algorithm?: string
  keyId?: string
  scope?: string
  /** Extra payload claims; when given, the deprecated `keyid` claim is not added (as OPA). */
  claims?: Record<string, unknown>
}

/** One entry of OPA's `keys` configuration. */
export interface VerificationKey {
  /** PEM public key (PKIX, PKCS#1) or certificate, or HMAC secret. */
  key: string
  /** Algorithm the signature must use, default RS256 (the token's `alg` is not trusted). */
  algorithm?: string
  scope?: string
}

/** OPA's `bundles[N].signing` block plus the `keys` it refers to. */
export interface VerificationConfig {
  keys: Record<string, VerificationKey>
  /** When set, wins over the token's `kid`, and an unsigned bundle is refused. */
  keyId?: string
  /** When set, wins over the key's own scope. */
  scope?: string
  /** Globs (Go `filepath.Match`) of files that need not be signed. */
  excludeFiles?: string[]
}
