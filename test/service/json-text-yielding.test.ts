/**
 * stringifyYielding and etagYielding give exactly stringifyJsonDocument's text and
 * documentEtag's value (lossless numbers, odd keys, surrogate pairs across hash slices), and a
 * large document's writing lets timers run meanwhile (the event loop is not held throughout).
 */
import { describe, expect, it } from 'vitest'
import { documentEtag, parseJsonDocument, stringifyJsonDocument } from '../../service/json-document.js'
import { etagYielding, stringifyYielding } from '../../service/json-text-yielding.js'

function large(items: number): unknown {
  const list = Array.from({ length: items }, (_, i) => ({
    id: `user-${i}`,
    n: i,
    big: parseJsonDocument('12345678901234567890123'),
    groups: Array.from({ length: 300 }, (_, j) => j),
    emoji: '😀',
  }))
  return {
    items: list,
    meta: {
      count: items,
      nested: { wide: Object.fromEntries(list.slice(0, 400).map((x, i) => [`k${i}`, x.id])) },
    },
  }
}

describe('stringifyYielding', () => {
  it('writes what stringifyJsonDocument writes', async () => {
    for (const value of [
      null,
      'text',
      1.5,
      [],
      {},
      { __proto__key: 1, 'a"b': [1, null, true] },
      parseJsonDocument('{"x":12345678901234567890,"y":[1e400]}'),
      large(2000),
    ])
      expect(await stringifyYielding(value)).toBe(stringifyJsonDocument(value))
  })

  it('lets timers run while a large document is written', async () => {
    const value = large(20000)
    let ticks = 0
    const timer = setInterval(() => ticks++, 1)
    try {
      const text = await stringifyYielding(value)
      expect(text.length).toBeGreaterThan(10_000_000)
    } finally {
      clearInterval(timer)
    }
    expect(ticks).toBeGreaterThan(2)
  })
})

describe('etagYielding', () => {
  it('equals documentEtag, with surrogate pairs across slice edges', async () => {
    for (const pad of [0, 1]) {
      const text = `${'a'.repeat(1024 * 1024 - 1 + pad)}${'😀'.repeat(600_000)}`
      expect(await etagYielding(text)).toBe(documentEtag(text))
    }
    expect(await etagYielding('')).toBe(documentEtag(''))
  })
})
