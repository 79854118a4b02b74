import { describe, expect, it } from 'vitest'
import { stringifyOpaJson, toOpaJson } from '../../../../core/rego/syntax/json.js'
import { parseModule } from '../../../../core/rego/syntax/module-parser.js'
import { parseQuery } from '../../../../core/rego/syntax/query.js'

describe('OPA AST JSON', () => {
  it('matches OPA for a small module (no locations, comments included by default)', () => {
    const m = parseModule('package a\n\n# hi\nallow if input.user == "alice"\n', { file: 'a.rego' })
    expect(JSON.parse(stringifyOpaJson(m))).toEqual({
      package: {
        path: [
          { type: 'var', value: 'data' },
          { type: 'string', value: 'a' },
        ],
      },
      rules: [
        {
          body: [
            {
              index: 0,
              terms: [
                { type: 'ref', value: [{ type: 'var', value: 'equal' }] },
                {
                  type: 'ref',
                  value: [
                    { type: 'var', value: 'input' },
                    { type: 'string', value: 'user' },
                  ],
                },
                { type: 'string', value: 'alice' },
              ],
            },
          ],
          head: {
            name: 'allow',
            ref: [{ type: 'var', value: 'allow' }],
            value: { type: 'boolean', value: true },
          },
        },
      ],
      comments: [
        { Text: Buffer.from(' hi').toString('base64'), Location: { file: 'a.rego', row: 3, col: 1 } },
      ],
    })
  })

  it('adds locations on request and can leave comments out', () => {
    const m = parseModule('package a\n# c\np := 1\n', { file: 'a.rego' })
    const out = toOpaJson(m, { locations: true, comments: false }) as Record<string, unknown>
    expect(out).not.toHaveProperty('comments')
    const text = stringifyOpaJson(m, { locations: true })
    expect(text).toContain('"location":{"file":"a.rego","row":3,"col":1}')
  })

  it('prints numbers exactly as written and every/some/with in OPA shape', () => {
    const body = parseQuery(
      'x := 0.1000000000000000055511151231257827\nevery k, v in xs { v }\nsome y\nf(1) with input as 2',
    )
    const out = JSON.parse(
      stringifyOpaJson(body).replace('0.1000000000000000055511151231257827', '"EXACT"'),
    ) as Array<Record<string, unknown>>
    expect(out[0]?.terms).toContainEqual({ type: 'number', value: 'EXACT' })
    expect(out[1]?.terms).toMatchObject({
      key: { value: 'k' },
      value: { value: 'v' },
      domain: { value: 'xs' },
      body: [{ index: 0 }],
    })
    expect(out[2]?.terms).toEqual({ symbols: [{ type: 'var', value: 'y' }] })
    expect(out[3]?.with).toEqual([
      {
        target: { type: 'ref', value: [{ type: 'var', value: 'input' }] },
        value: { type: 'number', value: 2 },
      },
    ])
  })
})
