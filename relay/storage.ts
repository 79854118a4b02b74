/**
 * Choosing the relay's storage folder. The relay acknowledges decision events (204) only once
 * they are committed in that folder, and promises agents the last good bundles from it after a
 * restart; a folder the next start will not read breaks both promises. So a storage folder that
 * cannot be written stops the start, unless the operator named an ephemeral fallback
 * (`relay.storage.fallback_dir`): a fixed path that the next start reads again, never a folder
 * named after the process id.
 */
import { closeSync, constants, openSync, unlinkSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import type { Logger } from 'pino'
import { makePrivateDir } from '../core/state-files.js'

/** The relay cannot keep what it must keep; the message names the folder, why, and what to do. */
export class StorageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'StorageError'
  }
}

export interface StorageChoice {
  /** `relay.storage.dir` (or `--data-dir`). */
  dir: string
  /** `relay.storage.fallback_dir`, when configured. */
  fallbackDir?: string
  logger: Logger
}

/**
 * Why `dir` cannot hold state, or undefined when it can: it is created (0700) when missing and
 * a file is written and removed in it. Writing is the only test that works for every cause
 * (read-only mount, permissions, a file in the way) and for root, whom `access(W_OK)` and
 * permission bits do not stop.
 */
export function unwritableReason(dir: string): string | undefined {
  try {
    makePrivateDir(dir)
    const probe = join(dir, `.write-probe-${process.pid}`)
    const fd = openSync(probe, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600)
    try {
      writeSync(fd, 'ok')
    } finally {
      closeSync(fd)
      unlinkSync(probe)
    }
    return undefined
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    return e.code ? `${e.code}: ${e.message}` : e.message
  }
}

/**
 * The folder the relay keeps its state in: the configured one when it is writable, else the
 * configured fallback (with a warning), else a StorageError.
 */
export function chooseStorageFolder({ dir, fallbackDir, logger }: StorageChoice): string {
  const problem = unwritableReason(dir)
  if (problem === undefined) return dir
  if (fallbackDir === undefined) {
    throw new StorageError(
      `relay.storage.dir: ${dir} is not writable (${problem}). The relay keeps acknowledged ` +
        'decision logs and last good bundles there and will not acknowledge what a restart cannot ' +
        'find: make the folder writable, or set relay.storage.fallback_dir to a folder the next ' +
        'start reads again',
    )
  }
  const fallbackProblem = unwritableReason(fallbackDir)
  if (fallbackProblem !== undefined) {
    throw new StorageError(
      `relay.storage.dir: ${dir} is not writable (${problem}), and neither is ` +
        `relay.storage.fallback_dir ${fallbackDir} (${fallbackProblem})`,
    )
  }
  logger.warn(
    { dir, reason: problem, fallback_dir: fallbackDir },
    'storage folder not writable; keeping bundles and decision logs in relay.storage.fallback_dir',
  )
  return fallbackDir
}
