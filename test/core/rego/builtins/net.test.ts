import { describe, expect, it } from 'vitest'
import { callAsync, expectError, json, testContext } from './helpers.js'

describe('CIDR checks', () => {
  it('cidr_contains takes CIDRs or IPs in both families', () => {
    expect(json('net.cidr_contains', '10.0.0.0/8', '10.1.1.1/32')).toBe('true')
    expect(json('net.cidr_contains', '172.17.0.0/24', '172.17.0.0/16')).toBe('false')
    expect(json('net.cidr_contains', '10.0.0.0/8', '10.1.2.3')).toBe('true')
    expect(json('net.cidr_contains', '10.0.0.0/8', '::ffff:10.1.2.3')).toBe('true')
    expect(
      json('net.cidr_contains', '2001:4860:4860::8888/32', '2001:4860:4860:1234:5678:1234:5678:8888/128'),
    ).toBe('true')
    expect(json('net.cidr_contains', '2001:4860::/96', '2001:4860::/32')).toBe('false')
    expect(json('net.cidr_contains', '10.0.0.0/8', '::1')).toBe('false')
    // An IPv4-mapped network is IPv4 with the last 32 bits of its mask, as Go's IPNet.Contains reads it.
    expect(json('net.cidr_contains', '::ffff:10.0.0.0/104', '10.1.2.3')).toBe('true')
    expect(json('net.cidr_contains', '::ffff:10.0.0.0/104', '11.1.2.3')).toBe('false')
    expect(json('net.cidr_intersects', '::ffff:10.0.0.0/104', '10.2.0.0/16')).toBe('true')
    expectError(
      'eval_builtin_error',
      'invalid CIDR address: not-a-cidr',
      'net.cidr_contains',
      'not-a-cidr',
      '192.168.1.67',
    )
    expectError(
      'eval_builtin_error',
      'invalid CIDR address: 010.0.0.0/8',
      'net.cidr_contains',
      '010.0.0.0/8',
      '10.0.0.1',
    )
  })

  it('intersects, is_valid, overlap', () => {
    expect(json('net.cidr_intersects', '192.168.1.0/25', '192.168.1.64/25')).toBe('true')
    expect(json('net.cidr_intersects', 'fd1e:5bfe:8af3:9ddc::/64', '2001:4860:4860::8888/32')).toBe('false')
    expectError(
      'eval_builtin_error',
      'invalid CIDR address',
      'net.cidr_intersects',
      '192.168.1.0/28',
      'not-a-cidr',
    )
    expect(json('net.cidr_is_valid', '2002::1234:abcd:ffff:c0a8:101/64')).toBe('true')
    expect(json('net.cidr_is_valid', '192.168.1.2')).toBe('false')
    expect(json('net.cidr_is_valid', '192.168.1.0/33')).toBe('false')
    expect(json('net.cidr_overlap', '10.0.0.0/8', '10.0.0.1')).toBe('true')
  })

  it('expand lists hosts', () => {
    expect(json('net.cidr_expand', '192.168.1.1/30')).toBe(
      '["192.168.1.0","192.168.1.1","192.168.1.2","192.168.1.3"]',
    )
    expect(json('net.cidr_expand', 'fe80::/127')).toBe('["fe80::","fe80::1"]')
    expectError(
      'eval_builtin_error',
      'net.cidr_expand: invalid CIDR address: 192.168.1.1/33',
      'net.cidr_expand',
      '192.168.1.1/33',
    )
    expectError('eval_builtin_error', 'more than', 'net.cidr_expand', '10.0.0.0/8')
  })

  it('contains_matches reports keys of matching pairs', () => {
    expect(json('net.cidr_contains_matches', '1.1.1.0/24', '1.1.1.1')).toBe('[["1.1.1.0/24","1.1.1.1"]]')
    expect(json('net.cidr_contains_matches', [['1.1.2.0/24', 1], '1.1.1.0/24'], ['1.1.1.1', '1.1.2.1'])).toBe(
      '[[0,1],[1,0]]',
    )
    expect(json('net.cidr_contains_matches', { k1: '1.1.1.1/24', k2: ['1.1.1.2/24', 1] }, '1.1.1.128')).toBe(
      '[["k1","1.1.1.128"],["k2","1.1.1.128"]]',
    )
    expectError(
      'eval_builtin_error',
      'net.cidr_contains_matches: operand 2: element must be string or non-empty array',
      'net.cidr_contains_matches',
      ['1.1.1.0/24'],
      ['1.1.1.1', 1],
    )
  })
})

describe('net.cidr_merge', () => {
  const cases: Array<[unknown, string]> = [
    [['192.0.128.0/24', '192.0.129.0/24'], '["192.0.128.0/23"]'],
    [['192.0.2.112/30', '192.0.2.116/31', '192.0.2.118/31'], '["192.0.2.112/29"]'],
    [['192.0.129.0/24', '192.0.130.0/24'], '["192.0.129.0/24","192.0.130.0/24"]'],
    [['192.0.2.112/31', '192.0.2.116/31', '192.0.2.118/31'], '["192.0.2.112/31","192.0.2.116/30"]'],
    [['192.0.128.0/24', '0.0.0.0/0'], '["0.0.0.0/0"]'],
    [['::/0', '::192.0.2.0/124', 'ff00::101/128'], '["::/0"]'],
    [
      ['fe80::/120', '192.0.2.0/24', '192.0.3.0/24', '192.0.4.0/25', '192.0.4.128/25'],
      '["192.0.2.0/23","192.0.4.0/24","fe80::/120"]',
    ],
    [['192.0.2.112', '192.0.2.116/31', '192.0.2.118/31'], '["192.0.2.0/24"]'],
    [[], '[]'],
  ]
  for (const [input, want] of cases) {
    it(JSON.stringify(input), () => expect(json('net.cidr_merge', input)).toBe(want))
  }
  it('needs prefixes for IPv6', () => {
    expectError('eval_builtin_error', 'net.cidr_merge: IPv6 invalid: needs prefix length', 'net.cidr_merge', [
      '2601:600:8a80:207e:a57d:7567:e2c9:e7b3',
    ])
  })
})

describe('net.lookup_ip_addr', () => {
  it('answers IP literals and localhost, and respects allow_net', async () => {
    expect(await callAsync(testContext(), 'net.lookup_ip_addr', '10.0.0.0')).toEqual(
      expect.objectContaining({ size: 1 }),
    )
    const local = await callAsync(testContext(), 'net.lookup_ip_addr', 'localhost')
    expect(JSON.stringify((local as { values(): unknown[] }).values())).toMatch(/127\.0\.0\.1|::1/)
    await expect(callAsync(testContext({ allowNet: [] }), 'net.lookup_ip_addr', 'localhost')).rejects.toThrow(
      'unallowed host: localhost',
    )
  })
})
