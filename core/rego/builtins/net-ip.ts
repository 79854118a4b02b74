/**
 * IP addresses and CIDRs as Go's `net` package parses and prints them, as bigints so both families
 * share one code path. (ipaddr.js turns `::a.b.c.d` into an IPv4-mapped address, unlike Go, so
 * the parsing is done here.)
 */
import { BuiltinError } from './errors.js'

/** An address: 32 bits (IPv4) or 128 bits (IPv6). */
export interface IP {
  v6: boolean
  value: bigint
}

/** A network: its first address and prefix length. */
export interface CIDR {
  ip: IP
  prefix: number
}

const V4 =
  /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/

function parseV4(s: string): bigint | undefined {
  const m = V4.exec(s)
  if (!m) return undefined
  return m.slice(1).reduce((acc, part) => (acc << 8n) | BigInt(part), 0n)
}

function parseV6(s: string): bigint | undefined {
  if (s.includes('%')) return undefined
  const halves = s.split('::')
  if (halves.length > 2) return undefined
  const groups = (text: string): bigint[] | undefined => {
    if (text === '') return []
    const out: bigint[] = []
    const parts = text.split(':')
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i] as string
      if (i === parts.length - 1 && part.includes('.')) {
        const v4 = parseV4(part)
        if (v4 === undefined) return undefined
        out.push(v4 >> 16n, v4 & 0xffffn)
      } else if (/^[0-9a-fA-F]{1,4}$/.test(part)) out.push(BigInt(`0x${part}`))
      else return undefined
    }
    return out
  }
  const head = groups(halves[0] as string)
  const tail = halves.length === 2 ? groups(halves[1] as string) : []
  if (!head || !tail) return undefined
  const missing = 8 - head.length - tail.length
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined
  const all = [...head, ...Array<bigint>(halves.length === 2 ? missing : 0).fill(0n), ...tail]
  return all.reduce((acc, g) => (acc << 16n) | g, 0n)
}

/** Go's `net.ParseIP`, or undefined. */
export function parseIP(s: string): IP | undefined {
  const v4 = parseV4(s)
  if (v4 !== undefined) return { v6: false, value: v4 }
  if (!s.includes(':')) return undefined
  const v6 = parseV6(s)
  return v6 === undefined ? undefined : { v6: true, value: v6 }
}

/** Go's `net.ParseCIDR` (the network address, prefix); throws Go's error. */
export function parseCIDR(s: string): CIDR {
  const slash = s.lastIndexOf('/')
  const bad = () => new BuiltinError(`invalid CIDR address: ${s}`)
  if (slash < 0) throw bad()
  const ip = parseIP(s.slice(0, slash))
  const prefixText = s.slice(slash + 1)
  if (!ip || !/^\d{1,3}$/.test(prefixText)) throw bad()
  const prefix = Number(prefixText)
  if (prefix > bits(ip)) throw bad()
  return { ip: { v6: ip.v6, value: ip.value & mask(ip.v6, prefix) }, prefix }
}

/** Address width. */
export function bits(ip: IP): number {
  return ip.v6 ? 128 : 32
}

/** The network mask of a prefix. */
export function mask(v6: boolean, prefix: number): bigint {
  const width = BigInt(v6 ? 128 : 32)
  const all = (1n << width) - 1n
  return (all << (width - BigInt(prefix))) & all
}

/** First and last address of a network. */
export function range(c: CIDR): [bigint, bigint] {
  const width = BigInt(bits(c.ip))
  return [c.ip.value, c.ip.value | ((1n << (width - BigInt(c.prefix))) - 1n)]
}

/** IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) count as IPv4, as in Go. */
export function normalizeIP(ip: IP): IP {
  if (ip.v6 && ip.value >> 32n === 0xffffn) return { v6: false, value: ip.value & 0xffffffffn }
  return ip
}

/** Go's `IP.String()`: dotted quad, or RFC 5952 IPv6 (mapped addresses print as IPv4). */
export function formatIP(ip: IP): string {
  const n = normalizeIP(ip)
  if (!n.v6) return [24n, 16n, 8n, 0n].map((s) => String((n.value >> s) & 0xffn)).join('.')
  const groups = Array.from({ length: 8 }, (_, i) => Number((n.value >> BigInt(112 - i * 16)) & 0xffffn))
  let bestStart = -1
  let bestLen = 0
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++
      continue
    }
    let j = i
    while (j < 8 && groups[j] === 0) j++
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i
      bestLen = j - i
    }
    i = j
  }
  const hex = groups.map((g) => g.toString(16))
  if (bestStart < 0) return hex.join(':')
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`
}

/** `a.b.c.d/n` text of a network. */
export function formatCIDR(c: CIDR): string {
  return `${formatIP(c.ip)}/${c.prefix}`
}
