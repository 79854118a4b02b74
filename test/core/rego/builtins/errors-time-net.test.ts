import { describe, it } from 'vitest'
import { type ErrorCase, expectErrors, withInput } from './eval-errors.js'

const B = 'eval_builtin_error' as const
const T = 'eval_type_error' as const

// OPA's v1/topdown/time.go: Go's time.Parse / ParseDuration / LoadLocation errors, and tzTime's
// operand errors (every time operand is `operand 1` there, also time.diff's second).
describe('time.* errors', () => {
  it('words them as OPA does', () => {
    const cases: ErrorCase[] = [
      {
        query: 'x := time.parse_ns("2006-01-02", "abc")',
        code: B,
        message: 'time.parse_ns: parsing time "abc" as "2006-01-02": cannot parse "abc" as "2006"',
      },
      {
        query: 'x := time.parse_ns("2006-01-02", "2262-04-12")',
        code: B,
        message: 'time.parse_ns: time outside of valid range',
      },
      {
        query: 'x := time.parse_ns("2006-01-02", "2020-02-30")',
        code: B,
        message: 'time.parse_ns: parsing time "2020-02-30": day out of range',
      },
      {
        query: 'x := time.parse_rfc3339_ns("2020-13-01T00:00:00Z")',
        code: B,
        message: 'time.parse_rfc3339_ns: parsing time "2020-13-01T00:00:00Z": month out of range',
      },
      {
        query: 'x := time.parse_rfc3339_ns("2020-12-01T25:00:00Z")',
        code: B,
        message: 'time.parse_rfc3339_ns: parsing time "2020-12-01T25:00:00Z": hour out of range',
      },
      {
        query: 'x := time.parse_rfc3339_ns("2020-12-01T10:61:00Z")',
        code: B,
        message: 'time.parse_rfc3339_ns: parsing time "2020-12-01T10:61:00Z": minute out of range',
      },
      {
        query: 'x := time.parse_ns("15:04:05", "10:00:60")',
        code: B,
        message: 'time.parse_ns: parsing time "10:00:60": second out of range',
      },
      {
        query: 'x := time.parse_rfc3339_ns("abc")',
        code: B,
        message:
          'time.parse_rfc3339_ns: parsing time "abc" as "2006-01-02T15:04:05Z07:00": cannot parse "abc" as "2006"',
      },
      {
        query: 'x := time.parse_duration_ns("abc")',
        code: B,
        message: 'time.parse_duration_ns: time: invalid duration "abc"',
      },
      {
        query: 'x := time.parse_duration_ns("1x")',
        code: B,
        message: 'time.parse_duration_ns: time: unknown unit "x" in duration "1x"',
      },
      {
        query: 'x := time.parse_duration_ns("1.5.h")',
        code: B,
        message: 'time.parse_duration_ns: time: missing unit in duration "1.5.h"',
      },
      {
        query: 'x := time.date([0, "Nowhere/Bad"])',
        code: B,
        message: 'time.date: unknown time zone Nowhere/Bad',
      },
      {
        query: 'x := time.clock([0, "Nowhere/Bad"])',
        code: B,
        message: 'time.clock: unknown time zone Nowhere/Bad',
      },
      {
        query: 'x := time.weekday([0, "Nowhere/Bad"])',
        code: B,
        message: 'time.weekday: unknown time zone Nowhere/Bad',
      },
      { query: 'x := time.date(1e30)', code: B, message: 'time.date: timestamp too big' },
      {
        query: 'x := time.add_date(0, 100000000, 0, 0)',
        code: B,
        message: 'time.add_date: time outside of valid range',
      },
      withInput('x := time.diff(0, input)', '[1, "Bad/Zone"]', B, 'time.diff: unknown time zone Bad/Zone'),
      withInput(
        'x := time.diff(0, input)',
        '[1, 2]',
        T,
        'time.diff: operand 1 must be string but got number',
      ),
      withInput(
        'x := time.date(input)',
        '[]',
        T,
        'time.date: operand 1 must be either number (ns) or [number (ns), string (tz)] but got array',
      ),
      withInput(
        'x := time.date(input)',
        '"x"',
        T,
        'time.date: operand 1 must be either number (ns) or [number (ns), string (tz)] but got string',
      ),
      withInput('x := time.date(input)', '["x"]', T, 'time.date: operand 1 must be number but got string'),
      withInput(
        'x := time.format(input)',
        '[0, "UTC", 1]',
        T,
        'time.format: operand 1 must be string but got number',
      ),
      withInput(
        'x := time.add_date(0, input, 0, 0)',
        '1.5',
        T,
        'time.add_date: operand 2 must be integer number but got floating-point number',
      ),
      withInput(
        'x := time.add_date(input, 0, 0, 0)',
        '[0, "Bad/Zone"]',
        B,
        'time.add_date: unknown time zone Bad/Zone',
      ),
    ]
    expectErrors(cases)
  })
})

// OPA's v1/topdown/cidr.go: net.ParseCIDR's `invalid CIDR address`, cidr_contains' own message for
// a second operand that is neither IP nor CIDR, cidr_merge's plain messages.
describe('net.* errors', () => {
  it('words them as OPA does', () => {
    const cases: ErrorCase[] = [
      {
        query: 'x := net.cidr_contains("foo", "1.1.1.1")',
        code: B,
        message: 'net.cidr_contains: invalid CIDR address: foo',
      },
      {
        query: 'x := net.cidr_contains("10.0.0.0/8", "foo")',
        code: B,
        message: 'net.cidr_contains: not a valid textual representation of an IP address or CIDR: foo',
      },
      {
        query: 'x := net.cidr_overlap("10.0.0.0/8", "bar")',
        code: B,
        message: 'net.cidr_overlap: not a valid textual representation of an IP address or CIDR: bar',
      },
      withInput(
        'x := net.cidr_contains("10.0.0.0/8", input)',
        '1',
        T,
        'net.cidr_contains: operand 1 must be string but got number',
      ),
      {
        query: 'x := net.cidr_intersects("10.0.0.0/8", "bar")',
        code: B,
        message: 'net.cidr_intersects: invalid CIDR address: bar',
      },
      {
        query: 'x := net.cidr_expand("bad")',
        code: B,
        message: 'net.cidr_expand: invalid CIDR address: bad',
      },
      {
        query: 'x := net.cidr_expand("1.2.3.4")',
        code: B,
        message: 'net.cidr_expand: invalid CIDR address: 1.2.3.4',
      },
      withInput('x := net.cidr_merge(input)', '"x"', B, 'net.cidr_merge: operand must be an array'),
      withInput('x := net.cidr_merge(input)', '[1]', B, 'net.cidr_merge: element must be string'),
      withInput(
        'x := net.cidr_merge(input)',
        '["::1"]',
        B,
        'net.cidr_merge: IPv6 invalid: needs prefix length',
      ),
      withInput('x := net.cidr_merge(input)', '["bad"]', B, 'net.cidr_merge: invalid CIDR address: bad'),
      withInput(
        'x := net.cidr_contains_matches(input, "1.1.1.1")',
        '[[]]',
        B,
        'net.cidr_contains_matches: operand 1: element must be string or non-empty array',
      ),
      withInput(
        'x := net.cidr_contains_matches("1.0.0.0/8", input)',
        '[1]',
        B,
        'net.cidr_contains_matches: operand 2: element must be string or non-empty array',
      ),
      withInput(
        'x := net.cidr_contains_matches(input, "1.1.1.1")',
        '[[1]]',
        T,
        'net.cidr_contains_matches: operand 1 must be string but got number',
      ),
      {
        query: 'x := net.cidr_contains_matches("10.0.0.0/8", "bad")',
        code: B,
        message:
          'net.cidr_contains_matches: not a valid textual representation of an IP address or CIDR: bad',
      },
    ]
    expectErrors(cases)
  })
})
