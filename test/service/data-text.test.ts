/**
 * spliceDocuments writes the same data.json text as placing the parsed documents in a tree and
 * writing it (for documents that do not overlap), and refuses overlapping ones; the stored-content
 * digest changes with any module, path or document change and not otherwise.
 */
import { describe, expect, it } from 'vitest'
import { spliceDocumentParts, spliceDocuments, storedContentDigest } from '../../service/data-text.js'
import { placeAt } from '../../service/data-tree.js'
import { documentEtag, parseJsonDocument, stringifyJsonDocument } from '../../service/json-document.js'
import { etagYielding, utf8Yielding } from '../../service/json-text-yielding.js'

const doc = (path: string, value: unknown) => {
  const text = stringifyJsonDocument(value)
  return { path, text, etag: documentEtag(text) }
}

function viaTree(documents: Array<{ path: string; text: string }>): string {
  const tree: Record<string, unknown> = {}
  for (const d of documents) placeAt(tree, d.path.split('/'), parseJsonDocument(d.text), d.path)
  return stringifyJsonDocument(tree)
}

describe('spliceDocuments', () => {
  it('matches the tree written as text, big numbers and odd keys included', () => {
    const documents = [
      doc('a/b', { x: [1, 2.5, 'three'], big: parseJsonDocument('12345678901234567890') }),
      doc('a/c', 'text'),
      doc('d', null),
      doc('e/f g/__proto__', { k: true }),
      doc('e/"q"', []),
    ]
    const text = spliceDocuments(documents)
    expect(text).toBe(viaTree(documents))
    expect(text).toContain('12345678901234567890')
  })

  it('refuses documents that overlap or sit at the root', () => {
    expect(spliceDocuments([doc('a', { b: 1 }), doc('a/c', 2)])).toBeUndefined()
    expect(spliceDocuments([doc('a/c', 2), doc('a', { b: 1 })])).toBeUndefined()
    expect(spliceDocuments([doc('a', 1), doc('a', 2)])).toBeUndefined()
    expect(spliceDocuments([doc('', { b: 1 })])).toBeUndefined()
  })

  it('writes an empty object for no documents', () => {
    expect(spliceDocuments([])).toBe('{}')
  })
})

describe('storedContentDigest', () => {
  const base = storedContentDigest({ 'p.rego': 'package p\n' }, [doc('a', { x: 1 })])
  it('is stable for the same content', () => {
    expect(storedContentDigest({ 'p.rego': 'package p\n' }, [doc('a', { x: 1 })])).toBe(base)
  })
  it('changes with a document, its path or a module', () => {
    expect(storedContentDigest({ 'p.rego': 'package p\n' }, [doc('a', { x: 2 })])).not.toBe(base)
    expect(storedContentDigest({ 'p.rego': 'package p\n' }, [doc('b', { x: 1 })])).not.toBe(base)
    expect(storedContentDigest({ 'q.rego': 'package p\n' }, [doc('a', { x: 1 })])).not.toBe(base)
    expect(storedContentDigest({ 'p.rego': 'package q\n' }, [doc('a', { x: 1 })])).not.toBe(base)
  })
})

describe('spliceDocumentParts and utf8Yielding', () => {
  it('give the bytes of spliceDocuments, documents cut in parts anywhere but inside a surrogate pair', async () => {
    const documents = [
      doc('a/b', { s: '😀 é x'.repeat(50), big: parseJsonDocument('12345678901234567890') }),
      doc('c', [1, 2, 3]),
    ]
    const cut = (text: string) => {
      const parts: string[] = []
      for (let at = 0; at < text.length; ) {
        let end = Math.min(text.length, at + 7)
        const last = text.charCodeAt(end - 1)
        if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++
        parts.push(text.slice(at, end))
        at = end
      }
      return parts
    }
    const parts = spliceDocumentParts(documents.map((d) => ({ path: d.path, parts: cut(d.text) })))
    expect(parts!.length).toBeGreaterThan(10)
    const bytes = await utf8Yielding(parts!)
    expect(Buffer.from(bytes).equals(Buffer.from(spliceDocuments(documents)!, 'utf8'))).toBe(true)
    expect(
      spliceDocumentParts([
        { path: 'a', parts: ['1'] },
        { path: 'a/b', parts: ['2'] },
      ]),
    ).toBeUndefined()
    expect(await etagYielding(cut(documents[0]!.text))).toBe(documents[0]!.etag)
  })
})
