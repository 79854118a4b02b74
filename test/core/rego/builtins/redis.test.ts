/**
 * redis.query against the real Redis at REGENT_TEST_REDIS_ADDR (default 127.0.0.1:6379); skipped,
 * saying so, when nothing answers there.
 */
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BuiltinCallError } from '../../../../core/rego/builtins/errors.js'
import { closeRedisClients, redisQuery } from '../../../../core/rego/builtins/redis.js'
import { callAsyncBuiltin } from '../../../../core/rego/builtins/registry.js'
import { fromJS, toJS } from '../../../../core/rego/values/index.js'
import { testContext } from './helpers.js'

const ADDR = process.env.REGENT_TEST_REDIS_ADDR ?? '127.0.0.1:6379'
const [HOST, PORT] = ADDR.split(':') as [string, string]
const DB = 3
const prefix = `regent:test:${process.pid}:${Date.now()}:`

async function reachable(): Promise<boolean> {
  const probe = new Redis({
    host: HOST,
    port: Number(PORT),
    lazyConnect: true,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
  })
  probe.on('error', () => {})
  try {
    await probe.connect()
    await probe.ping()
    return true
  } catch {
    return false
  } finally {
    probe.disconnect()
  }
}

const available = await reachable()
if (!available)
  console.warn(`redis.query tests skipped: no Redis answers at ${ADDR} (REGENT_TEST_REDIS_ADDR)`)

async function query(request: Record<string, unknown>, ctx = testContext()): Promise<unknown> {
  const out = await callAsyncBuiltin(redisQuery, ctx, [fromJS({ addr: ADDR, db: DB, ...request })])
  return out === undefined ? undefined : toJS(out)
}

async function queryError(request: Record<string, unknown>, ctx = testContext()): Promise<BuiltinCallError> {
  try {
    await query(request, ctx)
  } catch (err) {
    expect(err).toBeInstanceOf(BuiltinCallError)
    return err as BuiltinCallError
  }
  throw new Error('expected redis.query to fail')
}

describe.skipIf(!available)('redis.query', () => {
  const seed = new Redis({ host: HOST, port: Number(PORT), db: DB, lazyConnect: true })
  beforeAll(async () => {
    await seed.connect()
    await seed.set(`${prefix}greeting`, 'hello')
    await seed.sadd(`${prefix}toppings`, 'olive', 'feta')
    await seed.hset(`${prefix}user`, { name: 'alice', role: 'admin' })
  })
  afterAll(async () => {
    await seed.del(`${prefix}greeting`, `${prefix}toppings`, `${prefix}user`)
    seed.disconnect()
    await closeRedisClients()
  })

  it('answers get, smembers and hgetall (as an object) under results; command is case-insensitive', async () => {
    expect(await query({ command: 'GET', args: [`${prefix}greeting`] })).toEqual({ results: 'hello' })
    const members = (await query({ command: 'smembers', args: [`${prefix}toppings`] })) as {
      results: string[]
    }
    expect([...members.results].sort()).toEqual(['feta', 'olive'])
    expect(await query({ command: 'hgetall', args: [`${prefix}user`] })).toEqual({
      results: { name: 'alice', role: 'admin' },
    })
    expect(await query({ command: 'get', args: [`${prefix}missing`] })).toEqual({ results: null })
  })

  it('uses the db field: the same key in database 0 is not there', async () => {
    expect(await query({ db: 0, command: 'get', args: [`${prefix}greeting`] })).toEqual({ results: null })
  })

  it('refuses commands that are not in the read-only list, and hosts outside allow_net', async () => {
    const refused = await queryError({ command: 'set', args: [`${prefix}greeting`, 'changed'] })
    expect(refused.code).toBe('eval_type_error')
    expect(refused.message).toContain('unsupported command "set"')
    expect(await seed.get(`${prefix}greeting`)).toBe('hello')
    const err = await queryError(
      { command: 'get', args: ['x'] },
      testContext({ allowNet: ['cache.example'] }),
    )
    expect(err.message).toContain('unallowed host')
  })

  it('reports a store that is down, as an error or under error with raise_error false', async () => {
    const down = { addr: '127.0.0.1:1', command: 'get', args: ['x'] }
    expect((await queryError(down)).message).toContain('redis get failed')
    const answered = (await query({ ...down, raise_error: false })) as { error: { code: string } }
    expect(answered.error.code).toBe('redis_query_error')
  })
})
