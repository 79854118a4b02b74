/** Network built-ins: CIDR containment, intersection, expansion, merging, validation, DNS lookup. */
import { lookup } from 'node:dns/promises'
import { t } from '../types/index.js'
import type { Value } from '../values/index.js'
import { isArray, isObject, isSet, Value as V } from '../values/index.js'
import type { BuiltinContext } from './context.js'
import { defineBuiltin } from './define.js'
import { BuiltinError, CallRefusedError } from './errors.js'
import {
  type CIDR,
  formatCIDR,
  formatIP,
  type IP,
  mask,
  normalizeIP,
  parseCIDR,
  parseIP,
  range,
} from './net-ip.js'
import { stringOperand } from './operands.js'

/** Most addresses net.cidr_expand lists before failing (OPA has no limit; memory does). */
export const MAX_EXPAND = 1 << 20

function containsIP(net: CIDR, ip: IP): boolean {
  const x = normalizeIP(ip)
  const n = normalizeIP(net.ip)
  if (x.v6 !== n.v6) return false
  // Go's IPNet.Contains reads an IPv4-mapped network as IPv4 with the last 32 bits of its 128-bit
  // mask: `::ffff:10.0.0.0/104` is 10.0.0.0/8, and a prefix under 96 leaves no bits (/0).
  const prefix = net.ip.v6 && !n.v6 ? Math.max(net.prefix - 96, 0) : net.prefix
  const [lo, hi] = range({ ip: n, prefix })
  return x.value >= lo && x.value <= hi
}

function containsCIDR(outer: CIDR, inner: CIDR): boolean {
  const [lo, hi] = range(inner)
  return (
    containsIP(outer, { v6: inner.ip.v6, value: lo }) && containsIP(outer, { v6: inner.ip.v6, value: hi })
  )
}

/**
 * OPA's builtinNetCIDRContains (also registered for net.cidr_overlap): both operands are read as
 * `operand 1`, and a second operand that is neither an IP nor a CIDR gets its own message.
 */
function cidrContainsOperands(a: Value, b: Value): boolean {
  const net = parseCIDR(stringOperand(a, 1))
  const s = stringOperand(b, 1)
  const ip = parseIP(s)
  if (ip) return containsIP(net, ip)
  let inner: CIDR
  try {
    inner = parseCIDR(s)
  } catch {
    throw new BuiltinError(`not a valid textual representation of an IP address or CIDR: ${s}`)
  }
  return containsCIDR(net, inner)
}

export const cidrContains = defineBuiltin({
  name: 'net.cidr_contains',
  category: 'net',
  description:
    'Checks if a CIDR or IP is contained within another CIDR. `output` is `true` if `cidr_or_ip` (e.g. `127.0.0.64/26` or `127.0.0.1`) is contained within `cidr` (e.g. `127.0.0.1/24`) and `false` otherwise. Supports both IPv4 and IPv6 notations.',
  args: [
    t.named('cidr', t.string, 'CIDR to check against'),
    t.named('cidr_or_ip', t.string, 'CIDR or IP to check'),
  ],
  result: t.named('result', t.boolean, '`true` if `cidr_or_ip` is contained within `cidr`'),
  impl: (_ctx, [a, b]) => cidrContainsOperands(a, b),
})

export const cidrOverlap = defineBuiltin({
  name: 'net.cidr_overlap',
  category: 'net',
  description: 'Checks if an IP is contained in a CIDR (deprecated: use `net.cidr_contains`).',
  args: [t.named('cidr', t.string, 'CIDR to check against'), t.named('ip', t.string, 'IP to check')],
  result: t.named('result', t.boolean, '`true` if `ip` is in `cidr`'),
  deprecated: true,
  // OPA registers net.cidr_contains's implementation under this name.
  impl: (_ctx, [a, b]) => cidrContainsOperands(a, b),
})

export const cidrIntersects = defineBuiltin({
  name: 'net.cidr_intersects',
  category: 'net',
  description:
    'Checks if a CIDR intersects with another CIDR (e.g. `192.168.0.0/16` overlaps with `192.168.1.0/24`). Supports both IPv4 and IPv6 notations.',
  args: [t.named('cidr1', t.string, 'first CIDR'), t.named('cidr2', t.string, 'second CIDR')],
  result: t.named('result', t.boolean, '`true` if `cidr1` intersects with `cidr2`'),
  impl: (_ctx, [a, b]) => {
    const x = parseCIDR(stringOperand(a, 1))
    // OPA's getNetFromOperand names either operand `operand 1`.
    const y = parseCIDR(stringOperand(b, 1))
    return containsIP(x, y.ip) || containsIP(y, x.ip)
  },
})

export const cidrIsValid = defineBuiltin({
  name: 'net.cidr_is_valid',
  category: 'net',
  description: 'Parses an IPv4/IPv6 CIDR and returns a boolean indicating if the provided CIDR is valid.',
  args: [t.named('cidr', t.string, 'CIDR to validate')],
  result: t.named('result', t.boolean, '`true` if `cidr` is a valid CIDR'),
  impl: (_ctx, [c]) => {
    if (typeof c !== 'string') return false
    try {
      parseCIDR(c)
      return true
    } catch {
      return false
    }
  },
})

export const cidrExpand = defineBuiltin({
  name: 'net.cidr_expand',
  category: 'net',
  description:
    'Expands CIDR to set of hosts (e.g., `net.cidr_expand("192.168.0.0/30")` generates 4 hosts: `{"192.168.0.0", "192.168.0.1", "192.168.0.2", "192.168.0.3"}`).',
  args: [t.named('cidr', t.string, 'CIDR to expand')],
  result: t.named('hosts', t.set(t.string), 'set of IP addresses the CIDR `cidr` expands to'),
  impl: (_ctx, [c]) => {
    const net = parseCIDR(stringOperand(c, 1))
    const [lo, hi] = range(net)
    if (hi - lo + 1n > BigInt(MAX_EXPAND))
      throw new BuiltinError(`CIDR ${c as string} has more than ${MAX_EXPAND} addresses`)
    const out = V.set()
    for (let x = lo; x <= hi; x++) out.add(formatIP({ v6: net.ip.v6, value: x }))
    return out
  },
})

/**
 * Visits the keys and CIDR/IP terms of a cidr_contains_matches operand in order, as OPA's
 * evalNetCIDRContainsMatchesOperand does: a bad element fails when it is reached, and an operand
 * of another type has no elements (OPA's switch has no default).
 */
function eachMatchTerm(v: Value, position: number, visit: (key: Value, cidr: Value) => void): void {
  const element = (x: Value): Value => {
    if (typeof x === 'string') return x
    if (isArray(x) && x.length > 0) return x[0] as Value
    throw new BuiltinError(`operand ${position}: element must be string or non-empty array`)
  }
  if (typeof v === 'string') visit(v, v)
  else if (isArray(v)) {
    for (let i = 0; i < v.length; i++) visit(i, element(v[i] as Value))
  } else if (isSet(v)) for (const x of v.values()) visit(x, element(x))
  else if (isObject(v)) for (const [k, x] of v.entries()) visit(k, element(x))
}

export const cidrContainsMatches = defineBuiltin({
  name: 'net.cidr_contains_matches',
  category: 'net',
  description:
    'Checks if collections of cidrs or ips are contained within another collection of cidrs and returns matches. This function is similar to `net.cidr_contains` except it allows callers to pass collections of CIDRs or IPs as arguments and returns the matches (as opposed to a boolean result indicating a match between two CIDRs/IPs).',
  args: [
    t.named(
      'cidrs',
      t.anyOf(t.string, t.array(t.any), t.object(t.string, t.any), t.set(t.any)),
      'CIDRs to check against',
    ),
    t.named(
      'cidrs_or_ips',
      t.anyOf(t.string, t.array(t.any), t.object(t.string, t.any), t.set(t.any)),
      'CIDRs or IPs to check',
    ),
  ],
  result: t.named(
    'output',
    t.set(t.tuple(t.any, t.any)),
    'tuples identifying matches where `cidrs_or_ips` are contained within `cidrs`',
  ),
  impl: (_ctx, [a, b]) => {
    const out = V.set()
    eachMatchTerm(a, 1, (k1, cidr) =>
      eachMatchTerm(b, 2, (k2, item) => {
        if (cidrContainsOperands(cidr, item)) out.add([k1, k2])
      }),
    )
    return out
  },
})

/** A network from `cidr_merge` input: a CIDR, or a bare IPv4 address with its classful mask (as Go's DefaultMask). */
function mergeInput(s: string): CIDR {
  if (s.includes('/')) return parseCIDR(s)
  const ip = parseIP(s)
  if (!ip) throw new BuiltinError(`invalid CIDR address: ${s}`)
  if (ip.v6) throw new BuiltinError('IPv6 invalid: needs prefix length')
  const first = Number(ip.value >> 24n)
  const prefix = first < 128 ? 8 : first < 192 ? 16 : first < 224 ? 24 : -1
  if (prefix < 0) throw new BuiltinError(`IPv4 invalid: no default mask for ${s}`)
  return { ip: { v6: false, value: ip.value & mask(false, prefix) }, prefix }
}

/** Merges adjacent and overlapping networks of one family into the fewest CIDRs. */
export function mergeNetworks(nets: CIDR[]): CIDR[] {
  let list = [...nets].sort((a, b) =>
    a.ip.value < b.ip.value ? -1 : a.ip.value > b.ip.value ? 1 : a.prefix - b.prefix,
  )
  for (let changed = true; changed; ) {
    changed = false
    const kept: CIDR[] = []
    for (const n of list) {
      const last = kept[kept.length - 1]
      if (last && containsCIDR(last, n)) {
        changed = changed || last.prefix !== n.prefix || last.ip.value !== n.ip.value
        continue
      }
      if (last && last.prefix === n.prefix && last.prefix > 0) {
        const parent = {
          ip: { v6: last.ip.v6, value: last.ip.value & mask(last.ip.v6, last.prefix - 1) },
          prefix: last.prefix - 1,
        }
        if (parent.ip.value === last.ip.value && containsCIDR(parent, n)) {
          kept[kept.length - 1] = parent
          changed = true
          continue
        }
      }
      kept.push(n)
    }
    list = kept
  }
  return list
}

export const cidrMerge = defineBuiltin({
  name: 'net.cidr_merge',
  category: 'net',
  description:
    'Merges IP addresses and subnets into the smallest possible list of CIDRs (e.g., `net.cidr_merge(["192.0.128.0/24", "192.0.129.0/24"])` generates `{"192.0.128.0/23"}`. This function merges adjacent subnets where possible, those contained within others and also removes any duplicates. Supports both IPv4 and IPv6 notations. IPv6 inputs need a prefix length (e.g. "/128").',
  args: [t.named('addrs', t.anyOf(t.array(t.anyOf(t.string)), t.set(t.string)), 'CIDRs or IP addresses')],
  result: t.named(
    'output',
    t.set(t.string),
    'smallest possible set of CIDRs obtained after merging the provided list of IP addresses and subnets in `addrs`',
  ),
  impl: (_ctx, [addrs]) => {
    // OPA's own wording here, not the operand helpers' (builtinNetCIDRMerge, generateIPNet).
    if (!isArray(addrs) && !isSet(addrs)) throw new BuiltinError('operand must be an array')
    const nets = (isArray(addrs) ? addrs : addrs.values()).map((x) => {
      if (typeof x !== 'string') throw new BuiltinError('element must be string')
      return mergeInput(x)
    })
    const merged = [
      ...mergeNetworks(nets.filter((n) => !n.ip.v6)),
      ...mergeNetworks(nets.filter((n) => n.ip.v6)),
    ]
    return V.set(merged.map(formatCIDR))
  },
})

/**
 * Throws when the context forbids reaching `host` (capabilities `allow_net`: host names or IP
 * addresses, without ports; host names compare case-insensitively). OPA's message, naming the host.
 */
export function checkNetAllowed(ctx: BuiltinContext, host: string): void {
  const allowed = ctx.allowNet
  if (allowed === undefined) return
  const want = host.toLowerCase()
  if (!allowed.some((h) => h.toLowerCase() === want)) throw new CallRefusedError(`unallowed host: ${host}`)
}

export const lookupIPAddr = defineBuiltin({
  name: 'net.lookup_ip_addr',
  category: 'net',
  description:
    'Returns the set of IP addresses (both v4 and v6) that the passed-in `name` resolves to using the standard name resolution mechanisms available.',
  args: [t.named('name', t.string, 'domain name to resolve')],
  result: t.named('addrs', t.set(t.string), 'IP addresses (v4 and v6) that `name` resolves to'),
  nondeterministic: true,
  async: true,
  impl: async (ctx, [n]) => {
    const name = stringOperand(n, 1)
    const literal = parseIP(name)
    if (literal) return V.set([formatIP(literal)])
    checkNetAllowed(ctx, name)
    const key = `net.lookup_ip_addr:${name}`
    const cached = ctx.cache.get(key)
    if (cached !== undefined) return cached as Value
    try {
      const found = await lookup(name, { all: true, verbatim: true })
      const out = V.set(found.map((a) => a.address))
      ctx.cache.set(key, out)
      return out
    } catch (err) {
      throw new BuiltinError(`lookup ${name}: ${err instanceof Error ? err.message : String(err)}`)
    }
  },
})

/** The network built-ins. */
export const NET = [
  cidrContains,
  cidrOverlap,
  cidrIntersects,
  cidrIsValid,
  cidrExpand,
  cidrContainsMatches,
  cidrMerge,
  lookupIPAddr,
] as const
