/**
 * A private temporary folder (0700, under the OS temp dir) holding one operation's secret files
 * (0600) and helper scripts (0700). It is removed when the operation ends, whatever happened.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface PrivateDir {
  path: string
  /** Writes a file only the owner can read; returns its path. */
  writeSecret(name: string, content: string): Promise<string>
  /** Writes a shell script only the owner can read and run; returns its path. */
  writeScript(name: string, content: string): Promise<string>
}

export async function withPrivateDir<T>(fn: (dir: PrivateDir) => Promise<T>): Promise<T> {
  const path = await mkdtemp(join(tmpdir(), 'regent-git-'))
  const dir: PrivateDir = {
    path,
    async writeSecret(name, content) {
      const file = join(path, name)
      await writeFile(file, content, { mode: 0o600, flag: 'wx' })
      return file
    },
    async writeScript(name, content) {
      const file = join(path, name)
      await writeFile(file, content, { mode: 0o700, flag: 'wx' })
      return file
    },
  }
  try {
    return await fn(dir)
  } finally {
    await rm(path, { recursive: true, force: true })
  }
}

/** Quotes a path for /bin/sh (the helper scripts and GIT_SSH_COMMAND are read by a shell). */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`
}
