/**
 * Inputs for the optimizer's differential test: a seeded generator (the same inputs on every run)
 * that fills the fields the test policies read with values that take every branch, leaves fields
 * out, and gives them the wrong types; plus a few inputs that are not objects at all.
 */

/** A small deterministic PRNG (mulberry32), so a failing input can be reproduced. */
function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const USERS = ['alice', 'bob', 'carol', 'mallory', '', 'dave', 7]
const ACTIONS = ['read', 'write', 'delete']
const TYPES = ['doc', 'img', 1]
const SENSITIVITY = ['high', 'medium', 'low', 3, null]
const IMAGES = ['registry.local/app', 'docker.io/app', 'registry.local/db', 5]
const PRIVILEGED = [false, true, 'no']
const LABEL_KEYS = ['team', 'tier', 'cost', 'owner']
const NUMBERS = [0, 1, 5, 6, 11, 100, 101, 2.5, -3, '7']
const SCORES = [95, 90, 85, 80, 79, 50, 'x']

/** `count` generated inputs plus the odd ones (undefined stands for no input). */
export function differentialInputs(count: number, seed = 22): unknown[] {
  const next = rng(seed)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T
  const maybe = (p = 0.8) => next() < p
  const out: unknown[] = [undefined, null, 'a string', 42, [], {}]
  for (let i = 0; i < count; i++) {
    const input: Record<string, unknown> = {}
    if (maybe()) input.user = pick(USERS)
    if (maybe()) input.action = pick(ACTIONS)
    if (maybe()) input.type = pick(TYPES)
    if (maybe()) {
      const resource: Record<string, unknown> = {}
      if (maybe()) resource.owner = maybe(0.6) ? input.user : pick(USERS)
      if (maybe()) resource.sensitivity = pick(SENSITIVITY)
      input.resource = resource
    }
    if (maybe()) {
      const n = Math.floor(next() * 4)
      input.containers = Array.from({ length: n }, () => {
        const c: Record<string, unknown> = {}
        if (maybe(0.9)) c.image = pick(IMAGES)
        if (maybe(0.9)) c.privileged = pick(PRIVILEGED)
        return c
      })
    }
    if (maybe(0.5)) input.owner = pick(USERS)
    if (maybe()) {
      const labels: Record<string, unknown> = {}
      for (const k of LABEL_KEYS) if (maybe(0.5)) labels[k] = pick(USERS)
      input.labels = labels
    }
    if (maybe()) input.n = pick(NUMBERS)
    if (maybe()) input.m = pick(NUMBERS)
    if (maybe()) input.score = pick(SCORES)
    if (maybe()) input.ok = pick([true, false, 1])
    if (maybe(0.6)) input.users = Array.from({ length: Math.floor(next() * 3) }, () => pick(USERS))
    out.push(input)
  }
  return out
}
