import { describe, expect, it } from 'vitest'
import { callWith, expectError, json, testContext } from './helpers.js'

describe('time.now_ns', () => {
  it('is captured once per query', () => {
    const ctx = testContext({ timeNs: 1_700_000_000_123_456_789n })
    expect(callWith(ctx, 'time.now_ns')).toBe(1700000000123456789n)
    expect(callWith(ctx, 'time.now_ns')).toBe(1700000000123456789n)
    const live = testContext()
    const a = callWith(live, 'time.now_ns') as bigint
    expect(callWith(live, 'test.sleep', '5ms')).toBe(true)
    expect(callWith(live, 'time.now_ns')).toBe(a)
    expect(Number(a / 1_000_000n)).toBeGreaterThan(Date.now() - 60_000)
  })
})

describe('parsing', () => {
  it('parses Go layouts and named layouts', () => {
    expect(json('time.parse_ns', '2006-01-02T15:04:05Z07:00', '2017-06-02T19:00:00-07:00')).toBe(
      '1496455200000000000',
    )
    expect(json('time.parse_ns', "01/02 03:04:05PM '06 -0700", "06/02 07:00:00PM '17 -0700")).toBe(
      '1496455200000000000',
    )
    expect(json('time.parse_ns', '02 Jan 06 15:04 -0700', '02 Jun 17 19:00 -0700')).toBe(
      '1496455200000000000',
    )
    expect(json('time.parse_ns', 'RFC822Z', '02 Jun 17 19:00 -0700')).toBe('1496455200000000000')
    expect(json('time.parse_ns', '2006-01-02', '2020-02-29')).toBe('1582934400000000000')
    expect(json('time.parse_ns', 'Mon Jan _2 15:04:05 MST 2006', 'Fri Jun  2 19:00:00 UTC 2017')).toBe(
      '1496430000000000000',
    )
    expect(json('time.parse_ns', '2006-01-02T15:04:05Z07:00', '1677-09-21T00:12:43.145224192-00:00')).toBe(
      '-9223372036854775808',
    )
    expect(json('time.parse_rfc3339_ns', '2262-04-11T23:47:16.854775807-00:00')).toBe('9223372036854775807')
    expect(json('time.parse_rfc3339_ns', '1970-01-01T00:00:00-00:00')).toBe('0')
  })

  it('reports range and syntax errors', () => {
    expectError(
      'eval_builtin_error',
      'time outside of valid range',
      'time.parse_ns',
      '2006-01-02T15:04:05Z07:00',
      '2262-04-11T23:47:16.854775808-00:00',
    )
    expectError('eval_builtin_error', 'cannot parse', 'time.parse_ns', '2006-01-02', '2020/01/01')
    expectError('eval_builtin_error', 'day out of range', 'time.parse_ns', '2006-01-02', '2021-02-29')
    expectError('eval_builtin_error', 'extra text', 'time.parse_ns', '2006-01-02', '2021-02-01x')
    // Go range-tests zone offsets with >: +24:00 parses, +25:00 and 61 minutes do not.
    expect(json('time.parse_rfc3339_ns', '1970-01-02T00:00:00+24:00')).toBe('0')
    expectError(
      'eval_builtin_error',
      'parsing time "1970-01-01T00:00:00+25:00": time zone offset hour out of range',
      'time.parse_rfc3339_ns',
      '1970-01-01T00:00:00+25:00',
    )
    expectError(
      'eval_builtin_error',
      'time zone offset minute out of range',
      'time.parse_ns',
      '2006-01-02 -0700',
      '2021-02-01 +0061',
    )
  })

  it('parses durations like Go', () => {
    expect(json('time.parse_duration_ns', '100ms')).toBe('100000000')
    expect(json('time.parse_duration_ns', '1h2m3.5s')).toBe('3723500000000')
    expect(json('time.parse_duration_ns', '-1.5µs')).toBe('-1500')
    expect(json('time.parse_duration_ns', '0')).toBe('0')
    expectError('eval_builtin_error', 'time: missing unit in duration "1"', 'time.parse_duration_ns', '1')
    expectError(
      'eval_builtin_error',
      'time: unknown unit "d" in duration "1d"',
      'time.parse_duration_ns',
      '1d',
    )
    expectError('eval_builtin_error', 'time: invalid duration', 'time.parse_duration_ns', 'x')
  })
})

describe('calendar functions with zones', () => {
  it('date, clock and weekday', () => {
    expect(json('time.date', [1517814000000000000, 'America/Los_Angeles'])).toBe('[2018,2,4]')
    expect(json('time.date', [1517832000000000000, ''])).toBe('[2018,2,5]')
    expect(json('time.date', 1582977600000000000)).toBe('[2020,2,29]')
    expect(json('time.clock', [1517832000000000000, 'America/New_York'])).toBe('[7,0,0]')
    expect(json('time.weekday', 1517832000000000000)).toBe('"Monday"')
    expect(json('time.weekday', 1518350400000000000)).toBe('"Sunday"')
    expect(json('time.date', -1)).toBe('[1969,12,31]')
    expectError('eval_builtin_error', 'timestamp too big', 'time.weekday', 'json:1582977600000000000000')
    expectError('eval_builtin_error', 'unknown time zone Mars/Olympus', 'time.date', [0, 'Mars/Olympus'])
    expectError(
      'eval_type_error',
      'operand 1 must be either number (ns) or [number (ns), string (tz)] but got string',
      'time.date',
      'x',
    )
  })

  it('add_date normalizes like Go and checks the range', () => {
    expect(json('time.add_date', 1585852421593912000, -1, -1, -1)).toBe('1551465221593912000')
    // 2021-01-31 + 1 month = 2021-03-03
    expect(json('time.add_date', 1612051200000000000, 0, 1, 0)).toBe('1614729600000000000')
    expectError(
      'eval_builtin_error',
      'time outside of valid range',
      'time.add_date',
      'json:-9223372036854775808',
      0,
      0,
      -1,
    )
  })

  it('diff in years, months, days, hours, minutes, seconds', () => {
    const p = (d: string) => Number(json('time.parse_ns', '2006-01-02', d))
    expect(json('time.diff', p('2020-02-02'), p('2020-03-01'))).toBe('[0,0,28,0,0,0]')
    expect(json('time.diff', p('2021-02-02'), p('2021-03-01'))).toBe('[0,0,27,0,0,0]')
    expect(json('time.diff', p('2004-02-29'), p('2005-03-01'))).toBe('[1,0,1,0,0,0]')
    expect(json('time.diff', 61_000_000_000, 0)).toBe('[0,0,0,0,1,1]')
    expect(json('time.diff', [3_600_000_000_000, 'UTC'], [0, 'Asia/Shanghai'])).toBe('[0,0,0,1,0,0]')
  })

  it('format uses RFC3339Nano by default, zones, layouts and names', () => {
    expect(json('time.format', 'json:1670006453141828752')).toBe('"2022-12-02T18:40:53.141828752Z"')
    expect(json('time.format', ['json:1670006453141828752', 'Asia/Kolkata'])).toBe(
      '"2022-12-03T00:10:53.141828752+05:30"',
    )
    expect(
      json('time.format', ['json:1670006453141828752', 'Asia/Kolkata', 'Mon Jan 02 15:04:05 -0700 2006']),
    ).toBe('"Sat Dec 03 00:10:53 +0530 2022"')
    expect(json('time.format', ['json:1670006453141828752', 'Asia/Kolkata', 'RFC1123Z'])).toBe(
      '"Sat, 03 Dec 2022 00:10:53 +0530"',
    )
    expect(json('time.format', [0, 'UTC', 'Kitchen'])).toBe('"12:00AM"')
    expect(json('time.format', [0, 'America/Los_Angeles', 'MST 2006.000 _2 002'])).toBe(
      '"PST 1969.000 31 365"',
    )
    expectError('eval_builtin_error', 'timestamp too big', 'time.format', 'json:15829776000000000000000000')
  })
})
