/**
 * The README's first lines are what a new user runs: the two commands come first, and the silent
 * minutes of `npm ci` (better-sqlite3 compiling) are explained right after them.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')

describe('README', () => {
  it('starts with the two commands, then says why npm ci is silent', () => {
    const firstBlock = /^# regent\n\n```sh\n(.*?)\n```\n\n(.*?)\n\n/s.exec(readme)
    expect(firstBlock).not.toBeNull()
    const [, commands, next] = firstBlock as unknown as [string, string, string]
    expect(commands.split('\n').map((l) => l.split('#')[0]?.trim())).toEqual([
      'npm ci && npm start',
      'npm test',
    ])
    expect(next).toMatch(/npm ci/)
    expect(next).toMatch(/minutes/)
    expect(next).toMatch(/better-sqlite3/)
  })
})
