/**
 * Paths as OPA's REST API reads them. The query endpoints (`/v1/data/a/b/0`) turn the URL into a
 * `data` ref whose integer-looking segments are numbers; the write endpoints (`PUT /v1/data/a/b`)
 * and JSON Patch paths turn it into a storage path of strings. Both unescape each segment first,
 * so `%2F` stays inside its segment.
 */
import { badRequest } from '../core/http/index.js'

/** One segment of a `data` ref from the URL: a string key or an integer index. */
export type RefSegment = string | number

// Go's strconv.Atoi: optional sign, decimal digits, within a 64-bit int.
const ATOI = /^[+-]?\d+$/

/** Unescapes one percent-encoded segment as Go's `url.PathUnescape` (left as is when malformed). */
export function unescapeSegment(raw: string): string {
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}

/**
 * The `data` ref of a URL path (the part after `/v1/data/`), as OPA's `stringPathToRef`: empty
 * segments are skipped, integers become numbers, a `"` is refused.
 * @throws HttpError 400 `invalid path: …`
 * @example refFromUrlPath('a/b%20c/0') // ['a', 'b c', 0]
 */
export function refFromUrlPath(rawPath: string): RefSegment[] {
  const out: RefSegment[] = []
  for (const raw of rawPath.split('/')) {
    if (raw === '') continue
    const segment = unescapeSegment(raw)
    if (segment.includes('"')) throw badRequest(`invalid path: invalid ref term '${segment}'`)
    if (ATOI.test(segment)) {
      const n = Number(segment)
      if (Number.isSafeInteger(n)) {
        out.push(n)
        continue
      }
    }
    out.push(segment)
  }
  return out
}

/** Rego text of the ref (`data["a"][0]`), for preparing a query; every key is quoted. */
export function refQueryText(ref: readonly RefSegment[]): string {
  return `data${ref.map((s) => `[${typeof s === 'number' ? String(s) : JSON.stringify(s)}]`).join('')}`
}

const VAR_LIKE = /^[A-Za-z_][A-Za-z0-9_]*$/

/** The ref as OPA prints it in messages (`data.a.b[0]["x-y"]`). */
export function refDisplay(ref: readonly RefSegment[]): string {
  return `data${ref
    .map((s) => (typeof s === 'number' ? `[${s}]` : VAR_LIKE.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`))
    .join('')}`
}

/**
 * A storage path (the part after `/v1/data/` of a write), as OPA's `storage.ParsePathEscaped`:
 * leading and trailing slashes trimmed, every segment unescaped and kept as a string. The root is
 * the empty path.
 * @throws HttpError 400 `bad path: …` when a segment is not valid percent-encoding.
 */
export function storagePathFromUrl(rawPath: string): string[] {
  const trimmed = rawPath.replace(/^\/+|\/+$/g, '')
  if (trimmed === '') return []
  return trimmed.split('/').map((raw) => {
    try {
      return decodeURIComponent(raw)
    } catch {
      throw badRequest(`bad path: ${rawPath}`)
    }
  })
}

/**
 * The storage path a JSON Patch operation addresses: its `path` (a JSON pointer, `~1` for `/` and
 * `~0` for `~`) below the URL's root, as OPA's `prepareV1PatchSlice`.
 * @throws HttpError 400 `bad patch path: …`
 */
export function patchPath(root: readonly string[], pointer: string): string[] {
  const trimmed = pointer.replace(/^\/+|\/+$/g, '')
  if (trimmed === '') return [...root]
  const segments = trimmed.split('/').map((raw) => {
    let segment: string
    try {
      segment = decodeURIComponent(raw)
    } catch {
      throw badRequest(`bad patch path: ${pointer}`)
    }
    return segment.replaceAll('~1', '/').replaceAll('~0', '~')
  })
  return [...root, ...segments]
}

/** A storage path as OPA prints it in storage errors (`/a/b`). */
export function storagePathText(path: readonly string[]): string {
  return `/${path.join('/')}`
}

/**
 * The raw (still percent-encoded) rest of the request path after `prefix`, so an escaped `/`
 * stays inside its segment: `/v1/data/a%2Fb` with prefix `/v1/data` gives `a%2Fb`.
 */
export function rawPathAfter(url: string, prefix: string): string {
  const pathname = new URL(url).pathname
  return pathname.length > prefix.length ? pathname.slice(prefix.length + 1) : ''
}
