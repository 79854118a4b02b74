/**
 * redis.query: one read-only Redis command through ioredis, with EOPA's request object: `addr`
 * (`host:port`), `db` (default 0), `auth` (`username`, `password`), `command` (case-insensitive,
 * one of {@link REDIS_COMMANDS}), `args` and `raise_error`. The answer is `{"results": <reply>}`
 * (`hgetall` as an object, as the client decodes it). The host must pass the capabilities'
 * `allow_net`. Clients are kept per address, database and user for the life of the thread.
 */
import { createRequire } from 'node:module'
import type { Redis } from 'ioredis'
import { t } from '../types/index.js'
import type { ObjectValue, Value } from '../values/index.js'
import { fromJS, isObject, ObjectValue as Obj, toJS } from '../values/index.js'
import type { BuiltinContext } from './context.js'
import { defineBuiltin } from './define.js'
import { OperandError } from './errors.js'
import {
  answerOrError,
  optionalArray,
  requiredString,
  storeFailure,
  withinQuery,
} from './external-request.js'
import { checkNetAllowed } from './net.js'
import { objectOperand } from './operands.js'

/** The commands EOPA allows: all of them read, none writes. */
export const REDIS_COMMANDS = [
  'get',
  'getrange',
  'hexists',
  'hget',
  'hgetall',
  'hkeys',
  'hlen',
  'hmget',
  'hrandfield',
  'lindex',
  'llen',
  'lpos',
  'lrange',
  'mget',
  'scard',
  'sdiff',
  'sinter',
  'sintercard',
  'sismember',
  'smembers',
  'smismember',
  'srandmember',
  'strlen',
  'sunion',
] as const

// ioredis loads on the first call: every program that evaluates Rego would otherwise pay for it.
const require = createRequire(import.meta.url)
let redisClass: typeof Redis | undefined
const redisDriver = () => (redisClass ??= (require('ioredis') as { Redis: typeof Redis }).Redis)

const clients = new Map<string, Redis>()

/** Disconnects every Redis client of this thread. */
export async function closeRedisClients(): Promise<void> {
  const all = [...clients.values()]
  clients.clear()
  await Promise.allSettled(all.map((c) => c.quit()))
}

/** The `db` field: a whole number >= 0, default 0. */
export function redisDb(req: ObjectValue): number {
  const v = req.get('db')
  if (v === undefined) return 0
  const n = Number(toJS(v))
  if (!Number.isInteger(n) || n < 0)
    throw new OperandError(1, 'request parameter "db" must be a whole number >= 0')
  return n
}

function credentials(req: ObjectValue): { username?: string; password?: string } {
  const auth = req.get('auth')
  if (auth === undefined) return {}
  if (!isObject(auth)) throw new OperandError(1, 'request parameter "auth" must be an object')
  const pick = (k: string) => {
    const v = auth.get(k)
    if (v !== undefined && typeof v !== 'string') throw new OperandError(1, `auth.${k} must be a string`)
    return v as string | undefined
  }
  return { username: pick('username'), password: pick('password') }
}

function clientFor(
  ctx: BuiltinContext,
  addr: string,
  db: number,
  auth: { username?: string; password?: string },
): Redis {
  const at = addr.lastIndexOf(':')
  const host = at > 0 ? addr.slice(0, at).replace(/^\[|\]$/g, '') : addr
  const port = at > 0 ? Number(addr.slice(at + 1)) : 6379
  if (!host || !Number.isInteger(port))
    throw new OperandError(1, `request parameter "addr" must be host:port, got ${JSON.stringify(addr)}`)
  checkNetAllowed(ctx, host)
  const key = JSON.stringify([host, port, db, auth.username ?? '', auth.password ?? ''])
  let client = clients.get(key)
  if (!client) {
    client = new (redisDriver())({
      host,
      port,
      db,
      ...auth,
      lazyConnect: true,
      // A store that is down fails the call at once instead of queueing it for the retry loop.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 2000,
      retryStrategy: () => null,
    })
    client.on('error', () => {}) // surfaced through the command's own rejection
    clients.set(key, client)
  }
  return client
}

async function runCommand(client: Redis, command: string, args: unknown[]): Promise<unknown> {
  if (client.status === 'end' || client.status === 'close') await client.connect().catch(() => {})
  if (client.status === 'wait') await client.connect()
  // The named method applies ioredis's reply decoding (hgetall → object).
  const method = (client as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[command]
  return typeof method === 'function'
    ? method.apply(client, args)
    : client.call(command, ...(args as string[]))
}

export const redisQuery = defineBuiltin({
  name: 'redis.query',
  category: 'redis',
  description: 'Runs a read-only Redis command and returns its reply.',
  args: [t.named('request', t.object(t.string, t.any), 'addr, db, auth, command, args, raise_error')],
  result: t.named('response', t.object(t.any, t.any), '`results`: the reply'),
  nondeterministic: true,
  async: true,
  impl: (ctx, [r]) => {
    const req = objectOperand(r, 1)
    const addr = requiredString(req, 'addr')
    const command = requiredString(req, 'command').toLowerCase()
    const args = optionalArray(req, 'args').map((a) => {
      const js = toJS(a)
      return typeof js === 'object' && js !== null ? JSON.stringify(js) : js
    })
    if (!(REDIS_COMMANDS as readonly string[]).includes(command))
      throw new OperandError(
        1,
        `unsupported command ${JSON.stringify(command)}; allowed: ${REDIS_COMMANDS.join(', ')}`,
      )
    const db = redisDb(req)
    const auth = credentials(req)
    return answerOrError(req, 'redis_query_error', async () => {
      let reply: unknown
      try {
        const client = clientFor(ctx, addr, db, auth)
        reply = await withinQuery(ctx, runCommand(client, command, args))
      } catch (err) {
        if (err instanceof OperandError) throw err
        throw storeFailure(`redis ${command} failed`, err)
      }
      return Obj.fromRecord({ results: fromJS(reply ?? null) as Value })
    })
  },
})

/** The redis.* built-ins. */
export const REDIS = [redisQuery] as const
