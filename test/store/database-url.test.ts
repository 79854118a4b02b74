/**
 * `service.database.url` names a database the service supports, or the service refuses to start
 * with an error that says so (it used to become a SQLite file named after the URL).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../core/config.js'
import { serviceSectionSchema } from '../../service/index.js'
import { databaseUrlProblem } from '../../store/database.js'
import { ServiceStore } from '../../store/service/index.js'

describe('database URL schemes', () => {
  it('accepts PostgreSQL URLs, sqlite: and file paths', () => {
    for (const url of [
      'postgres://u@h:5432/db',
      'POSTGRESQL://h/db',
      'sqlite:/var/lib/regent/service.db',
      'sqlite:///tmp/x.db',
      '/var/lib/regent/service.db',
      './service.db',
      'service.db',
      ':memory:',
      'C:\\regent\\service.db',
    ]) {
      expect(databaseUrlProblem(url), url).toBeUndefined()
    }
  })

  it('names the unsupported scheme and what to use instead', () => {
    for (const [url, scheme] of [
      ['dynamodb://table', 'dynamodb:'],
      ['mysql://root@127.0.0.1/db', 'mysql:'],
      ['file:service.db', 'file:'],
      ['redis+tls://h', 'redis+tls:'],
    ] as const) {
      const problem = databaseUrlProblem(url) ?? ''
      expect(problem, url).toContain(`"${scheme}"`)
      expect(problem).toMatch(/postgres:\/\/.*sqlite:PATH/)
    }
  })

  it('fails the config check at start, naming service.database.url', () => {
    expect(() => parseConfig('database: {url: "dynamodb://regent-table"}', serviceSectionSchema)).toThrow(
      /database\.url.*unsupported database URL scheme "dynamodb:"/s,
    )
  })

  it('refuses to open such a database instead of creating a SQLite file of that name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-url-'))
    const cwd = process.cwd()
    try {
      process.chdir(dir)
      await expect(ServiceStore.open({ url: 'dynamodb://regent-table' })).rejects.toThrow(
        /unsupported database URL scheme/,
      )
      expect(existsSync(join(dir, 'dynamodb:'))).toBe(false)
    } finally {
      process.chdir(cwd)
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
