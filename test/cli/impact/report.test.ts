/**
 * The `impact record` report against the reference tool's own published examples: the grouped
 * statistics (mean, median, sample standard deviation and variance) and Go's duration text for
 * the same rows, plus CSV quoting and --limit.
 */
import { describe, expect, it } from 'vitest'
import { buildReport, goDuration, renderReport, statistics } from '../../../cli/impact/report.js'

const ROWS = [
  {
    node_id: 'n0',
    req_id: 6,
    decision_id: 'd6',
    value_a: 1,
    value_b: 1,
    input: true,
    path: 'test/p',
    eval_ns_a: 96880,
    eval_ns_b: 52297047,
  },
  {
    node_id: 'n0',
    req_id: 7,
    decision_id: 'd7',
    value_a: 1,
    value_b: 1,
    input: 'whatever',
    path: 'test/p',
    eval_ns_a: 113279,
    eval_ns_b: 50245047,
  },
  {
    node_id: 'n1',
    req_id: 8,
    decision_id: 'd8',
    value_a: 2,
    value_b: 3,
    input: 'whatever',
    path: 'test/p',
    eval_ns_a: 1132790,
    eval_ns_b: 502450470,
  },
]

describe('impact report', () => {
  it('groups by path and input, most frequent first, with the reference figures', () => {
    const report = buildReport(ROWS, { group: true, limit: 0 })
    expect(report.columns.slice(0, 5)).toEqual(['path', 'input', 'n', 'mean_primary_ns', 'median_primary_ns'])
    expect(report.rows[0]!.slice(0, 9)).toEqual([
      'test/p',
      'whatever',
      2,
      623034.5,
      623034.5,
      113279,
      1132790,
      720903.1415942783,
      519701339560.5,
    ])
    expect(report.rows[1]!.slice(0, 3)).toEqual(['test/p', true, 1])
    expect(statistics([96880]).slice(4)).toEqual([undefined, undefined])
    const csv = renderReport(buildReport(ROWS, { group: true, limit: 1 }), 'csv').split('\n')
    expect(csv[1]).toMatch(
      /^test\/p,whatever,2,623034.5,623034.5,113279,1132790,720903.1415942783,519701339560.5,/,
    )
    expect(csv).toHaveLength(3)
  })

  it('writes rows as CSV, JSON and a box table with Go durations', () => {
    const csv = renderReport(buildReport(ROWS, { group: false, limit: 2 }), 'csv')
    expect(csv).toBe(
      'node_id,req_id,decision_id,value_a,value_b,input,path,eval_ns_a,eval_ns_b\n' +
        'n0,6,d6,1,1,true,test/p,96880,52297047\nn0,7,d7,1,1,whatever,test/p,113279,50245047\n',
    )
    const objects = renderReport(
      buildReport([{ ...ROWS[0], input: { a: 'x,"y"' } }], { group: false, limit: 0 }),
      'csv',
    )
    expect(objects.split('\n')[1]).toContain('"{""a"":""x,\\""y\\""""}"')
    expect(JSON.parse(renderReport(buildReport(ROWS, { group: false, limit: 0 }), 'json'))).toEqual(ROWS)
    const pretty = renderReport(buildReport(ROWS, { group: false, limit: 1 }), 'pretty')
    expect(pretty).toContain('eval_duration_a')
    expect(pretty).toContain('96.88µs')
    expect(pretty).toContain('52.297047ms')
    expect(pretty.split('\n')[0]!.startsWith('┌')).toBe(true)
  })

  it('formats durations as Go does', () => {
    expect(goDuration(0)).toBe('0s')
    expect(goDuration(999)).toBe('999ns')
    expect(goDuration(113279)).toBe('113.279µs')
    expect(goDuration(1132790)).toBe('1.13279ms')
    expect(goDuration(623034.5)).toBe('623.034µs')
    expect(goDuration(519701339560.5)).toBe('8m39.70133956s')
    expect(goDuration(3_600_000_000_000)).toBe('1h0m0s')
  })
})
