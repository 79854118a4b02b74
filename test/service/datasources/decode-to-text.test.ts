/**
 * decodeToText (decode-off-thread.ts): one worker decodes, filters and writes the stored text;
 * the parts it answers join to exactly what the main thread would store, with the same ETag, item
 * count and error messages. prepareModuleWorker builds a worker's bundle without holding the
 * event loop.
 */
import { describe, expect, it } from 'vitest'
import { prepareModuleWorker } from '../../../core/workers/start-worker.js'
import { decodeContent } from '../../../service/datasources/decode.js'
import { decodeToText } from '../../../service/datasources/decode-off-thread.js'
import { runFilter } from '../../../service/datasources/filter.js'
import { RunError } from '../../../service/datasources/types.js'
import { documentEtag, stringifyJsonDocument } from '../../../service/json-document.js'

const BUDGET = { timeoutMs: 0, instructionLimit: 0 }
const FILTER = 'package f\n\nimport rego.v1\n\nids := [x.id | some x in input.items; x.n > 1]\n'

/** About `bytes` of JSON with numbers a double cannot hold and characters outside the BMP. */
function text(bytes: number): string {
  const items: string[] = []
  for (let i = 0, size = 0; size < bytes; i++) {
    const item = `{"id":"😀-${i}","n":${i % 5},"exact":98765432109876543210${i % 10}}`
    items.push(item)
    size += item.length + 1
  }
  return `{"items":[${items.join(',')}],"total":1.00000000000000000000001}`
}

describe('decodeToText', () => {
  it('answers the text, ETag and item count the main thread would store, filtered or not', async () => {
    const source = text(2_500_000)
    const main = stringifyJsonDocument(decodeContent(Buffer.from(source), 'json', 'x', 1000))
    const made = await decodeToText(Buffer.from(source), 'json', 'x', 1000, undefined)
    expect(made.parts.length).toBeGreaterThan(1)
    expect(made.parts.join('') === main).toBe(true)
    expect(made.etag).toBe(documentEtag(main))
    expect(made.items).toBe(2)
    const content = decodeContent(Buffer.from(source), 'json', 'x', 1000)
    const expected = await runFilter(FILTER, 'data.f.ids', content, BUDGET)
    const filtered = await decodeToText(Buffer.from(source), 'json', 'x', 1000, {
      policyFilter: FILTER,
      policyQuery: 'data.f.ids',
      budget: BUDGET,
    })
    expect(filtered.parts.join('')).toBe(expected.text)
    expect(filtered.items).toBe(expected.items)
  })

  it('fails with the messages the main thread gives', async () => {
    const broken = Buffer.from(`${text(1_200_000).slice(0, -1)},]`)
    let mainError = ''
    try {
      decodeContent(broken, 'json', 'http://src/doc', 1000)
    } catch (err) {
      mainError = (err as Error).message
    }
    await expect(decodeToText(broken, 'json', 'http://src/doc', 1000, undefined)).rejects.toThrow(
      new RunError(mainError),
    )
    // A complete rule with two values: an evaluation error naming file:row:col.
    const module = 'package f\n\nx := y if {\n\tsome y in [1, 2]\n}\n'
    const failing = { policyFilter: module, policyQuery: 'data.f.x', budget: BUDGET }
    const small = Buffer.from(text(1000))
    const mainFilterError = await runFilter(
      module,
      'data.f.x',
      decodeContent(small, 'json', 'x', 1000),
      BUDGET,
    ).then(
      () => '',
      (err: Error) => err.message,
    )
    expect(mainFilterError).toMatch(/^filter error: policy_filter\.rego:\d+:\d+: eval_conflict_error/)
    await expect(decodeToText(small, 'json', 'x', 1000, failing)).rejects.toThrow(
      new RunError(mainFilterError),
    )
  })
})

describe('prepareModuleWorker', () => {
  it('lets the event loop turn while a worker is bundled', async () => {
    let turned = false
    setImmediate(() => {
      turned = true
    })
    const url = new URL('../../../service/datasources/filter-off-thread.ts', import.meta.url).href
    const preparing = prepareModuleWorker(url, 'filter-worker')
    expect(prepareModuleWorker(url, 'filter-worker')).toBe(preparing)
    await preparing
    expect(turned).toBe(true)
  })
})
