/**
 * Moving a decoded document from a decode worker to the main thread in small pieces. Posting the
 * whole document at once would make the main thread deserialize all of it in one go (as long as
 * parsing it there), so the worker splits it: a subtree small enough travels whole, a larger
 * container travels as an "open" marker followed by its children, each at its path. Pieces are
 * sent in batches of about BATCH_WEIGHT bytes, one batch per request of the main thread, so no
 * single message takes more than a millisecond or so to receive.
 *
 * Numbers a double cannot hold are LosslessNumbers, which a structured clone turns into plain
 * objects: a piece carries them as their text, with the relative paths where they go back.
 */
import { isLosslessNumber, LosslessNumber } from 'lossless-json'
import { isJsonObject, setOwn } from '../json-document.js'

/** A step into a document: an object key or an array index. */
export type PathKey = string | number

/** One piece of a document: a container to open at `path`, or a whole value to set there. */
export type Piece =
  | { path: PathKey[]; open: 'array' | 'object' }
  | { path: PathKey[]; value: unknown; numbers?: Array<[PathKey[], string]> }

/** About how many bytes of the document one batch carries. */
export const BATCH_WEIGHT = 128 * 1024

interface Weighed {
  weight: number
  /** True when a LosslessNumber is inside. */
  exact: boolean
}

/** A rough size of a value in bytes (its JSON text), without stringifying it. */
function leafWeight(value: unknown): number {
  return typeof value === 'string' ? value.length + 2 : 8
}

/** Weighs every container of `root` once (post-order), remembering the weights. */
function weighAll(root: unknown): Map<object, Weighed> {
  const weights = new Map<object, Weighed>()
  const weigh = (value: unknown): Weighed => {
    if (isLosslessNumber(value)) return { weight: (value as LosslessNumber).value.length, exact: true }
    if (Array.isArray(value) || isJsonObject(value)) {
      let weight = 2
      let exact = false
      const entries = Array.isArray(value) ? value.entries() : Object.entries(value)
      for (const [key, child] of entries) {
        const w = weigh(child)
        weight += w.weight + (typeof key === 'string' ? key.length + 4 : 1)
        exact ||= w.exact
      }
      const out = { weight, exact }
      weights.set(value, out)
      return out
    }
    return { weight: leafWeight(value), exact: false }
  }
  weigh(root)
  return weights
}

/** `value` with its LosslessNumbers replaced by their text, and where they were. */
function withNumbersAsText(value: unknown): { value: unknown; numbers: Array<[PathKey[], string]> } {
  const numbers: Array<[PathKey[], string]> = []
  const copy = (v: unknown, path: PathKey[]): unknown => {
    if (isLosslessNumber(v)) {
      numbers.push([path, (v as LosslessNumber).value])
      return (v as LosslessNumber).value
    }
    if (Array.isArray(v)) return v.map((child, i) => copy(child, [...path, i]))
    if (!isJsonObject(v)) return v
    const out: Record<string, unknown> = {}
    for (const [k, child] of Object.entries(v)) setOwn(out, k, copy(child, [...path, k]))
    return out
  }
  return { value: copy(value, []), numbers }
}

/**
 * The pieces of `root`, in document order, each with its weight.
 * @example for (const { piece } of documentPieces(doc)) assembler.add(piece)
 */
export function* documentPieces(
  root: unknown,
  pieceWeight = BATCH_WEIGHT,
): Generator<{ piece: Piece; weight: number }> {
  const weights = weighAll(root)
  const stack: Array<{ path: PathKey[]; value: unknown }> = [{ path: [], value: root }]
  while (stack.length > 0) {
    const { path, value } = stack.pop()!
    const container = Array.isArray(value) || isJsonObject(value)
    const weighed = container
      ? weights.get(value as object)!
      : { weight: leafWeight(value), exact: isLosslessNumber(value) }
    if (!container || weighed.weight <= pieceWeight) {
      if (!weighed.exact) yield { piece: { path, value }, weight: weighed.weight }
      else {
        const { value: plain, numbers } = withNumbersAsText(value)
        yield { piece: { path, value: plain, numbers }, weight: weighed.weight }
      }
      continue
    }
    yield { piece: { path, open: Array.isArray(value) ? 'array' : 'object' }, weight: 2 }
    // Pushed last first, so children come out in document order.
    const children: Array<[PathKey, unknown]> = Array.isArray(value)
      ? value.map((child, i) => [i, child])
      : Object.entries(value as Record<string, unknown>)
    for (let i = children.length - 1; i >= 0; i--) {
      const [key, child] = children[i]!
      stack.push({ path: [...path, key], value: child })
    }
  }
}

/** Groups pieces into batches of about `BATCH_WEIGHT` bytes each. */
export function* pieceBatches(root: unknown, batchWeight = BATCH_WEIGHT): Generator<Piece[]> {
  let batch: Piece[] = []
  let weight = 0
  for (const { piece, weight: w } of documentPieces(root, batchWeight)) {
    batch.push(piece)
    weight += w
    if (weight >= batchWeight) {
      yield batch
      batch = []
      weight = 0
    }
  }
  if (batch.length > 0) yield batch
}

/** Puts pieces back together on the receiving side. */
export class DocumentAssembler {
  #root: unknown

  /** The document; complete once every piece was added. */
  get document(): unknown {
    return this.#root
  }

  add(piece: Piece): void {
    const value = 'open' in piece ? (piece.open === 'array' ? [] : {}) : revive(piece.value, piece.numbers)
    if (piece.path.length === 0) {
      this.#root = value
      return
    }
    let parent = this.#root as Record<PathKey, unknown>
    for (let i = 0; i < piece.path.length - 1; i++)
      parent = parent[piece.path[i]!] as Record<PathKey, unknown>
    const key = piece.path[piece.path.length - 1]!
    if (Array.isArray(parent)) parent[key as number] = value
    else setOwn(parent as Record<string, unknown>, key as string, value)
  }
}

/** `value` with the numbers held as text made LosslessNumbers again. */
function revive(value: unknown, numbers: Array<[PathKey[], string]> | undefined): unknown {
  if (!numbers) return value
  let root = value
  for (const [path, text] of numbers) {
    const number = new LosslessNumber(text)
    if (path.length === 0) {
      root = number
      continue
    }
    let parent = root as Record<PathKey, unknown>
    for (let i = 0; i < path.length - 1; i++) parent = parent[path[i]!] as Record<PathKey, unknown>
    const key = path[path.length - 1]!
    if (Array.isArray(parent)) parent[key as number] = number
    else setOwn(parent as Record<string, unknown>, key as string, number)
  }
  return root
}
