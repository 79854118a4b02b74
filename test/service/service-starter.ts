/**
 * For tests that start several services. Kept out of harness.ts, which benchmarks run outside
 * vitest import too.
 */
import { afterAll } from 'vitest'
import type { Backend } from '../store/backends.js'
import { startTestService, type TestService } from './harness.js'

/**
 * Call it inside a `describe`: the function it returns starts a service on `backend`, and every
 * service started is closed after that block's tests.
 */
export function serviceStarter(backend: Backend): (serviceYaml?: string) => Promise<TestService> {
  const services: TestService[] = []
  afterAll(async () => {
    for (const t of services) await t.close()
  })
  return async (serviceYaml) => {
    const t = await startTestService(backend, serviceYaml)
    services.push(t)
    return t
  }
}
