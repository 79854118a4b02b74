/**
 * A system's data tree as JSON text made from its stored documents' texts, without parsing them:
 * each document's text is spliced in at its path. For a 50 MB datasource document this replaces
 * parsing it into objects, copying, writing it back to text and parsing that again (seconds of
 * CPU, a gigabyte of heap) with string joins. Only for documents that do not overlap (none at the
 * root, none below another): overlapping ones merge, and the caller places them as trees.
 */
import { createHash } from 'node:crypto'

/** A stored document: its path relative to the system (never empty) and its JSON text. */
export interface PlacedText {
  path: string
  text: string
}

interface Node {
  children: Map<string, Node>
  parts?: readonly string[]
}

/**
 * The JSON text of the tree holding each document at its path, or undefined when two documents
 * overlap (or one is at the root), which needs a merge. Keys in the order of `documents`.
 */
export function spliceDocuments(documents: readonly PlacedText[]): string | undefined {
  return spliceDocumentParts(documents.map((doc) => ({ path: doc.path, parts: [doc.text] })))?.join('')
}

/**
 * spliceDocuments for documents given as the parts of their texts (a large stored document's
 * chunks): the text as parts in order, never joined here (tens of MB would be copied at once).
 */
export function spliceDocumentParts(
  documents: ReadonlyArray<{ path: string; parts: readonly string[] }>,
): string[] | undefined {
  const root: Node = { children: new Map() }
  for (const doc of documents) {
    if (doc.path === '') return undefined
    let node = root
    for (const segment of doc.path.split('/')) {
      if (node.parts !== undefined) return undefined
      let child = node.children.get(segment)
      if (!child) {
        child = { children: new Map() }
        node.children.set(segment, child)
      }
      node = child
    }
    if (node.parts !== undefined || node.children.size > 0) return undefined
    node.parts = doc.parts
  }
  const out: string[] = []
  write(root, out)
  return out
}

function write(node: Node, out: string[]): void {
  if (node.parts !== undefined) {
    out.push(...node.parts)
    return
  }
  out.push('{')
  let first = true
  for (const [key, child] of node.children) {
    out.push(`${first ? '' : ','}${JSON.stringify(key)}:`)
    first = false
    write(child, out)
  }
  out.push('}')
}

/**
 * sha256 over the modules (sorted by path) and each document's path and stored ETag (itself the
 * sha256 of its text, computed when it was written): equal stored content, equal revision,
 * without hashing the documents' text again.
 */
export function storedContentDigest(
  modules: Record<string, string>,
  documents: ReadonlyArray<{ path: string; etag: string }>,
): string {
  const hash = createHash('sha256')
  for (const path of Object.keys(modules).sort()) hash.update(`module\0${path}\0${modules[path]}\0`)
  hash.update('documents\0')
  for (const doc of documents) hash.update(`${doc.path}\0${doc.etag}\0`)
  return hash.digest('hex')
}
