/**
 * Where the secrets keyring comes from, in this order:
 * 1. `service.secrets.key_file`: a file in the keyring's text form (keyring.ts);
 * 2. `REGENT_SECRETS_KEY`: the same text form in the environment (commas between keys);
 * 3. otherwise `<data dir>/secrets.key`, generated with one new key (0600) on first start.
 *
 * A key file others may read (any group or other permission bit) is refused, as ssh refuses a
 * private key others can read: the file is the only thing between the database and the values.
 * Files are re-read when they change (checked on each use by size and mtime), so a rotation by
 * `regent service rotate-secrets-key` reaches a running service without a restart.
 */
import { readFileSync, renameSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { makePrivateDir, writeNewPrivateFile } from '../../core/state-files.js'
import { formatKeyring, generateSecretKey, Keyring, parseKeyring, SecretKeyError } from './keyring.js'

/** The environment variable that may carry the keyring. */
export const SECRETS_KEY_ENV = 'REGENT_SECRETS_KEY'
/** The generated key file's name in the data folder. */
export const GENERATED_KEY_FILE = 'secrets.key'

/** Where the keys are, and how to read (and for files, replace) them. */
export interface SecretKeySource {
  /** For messages: `key file /etc/regent/secrets.key`, `REGENT_SECRETS_KEY`. */
  readonly description: string
  /** The file, when the keys live in one (rotation rewrites it). */
  readonly file?: string
  /** The current keyring (files are re-read when they changed). */
  current(): Keyring
  /** Replaces the keys (files only). @throws SecretKeyError for the environment. */
  replace(keyring: Keyring): void
}

export interface KeySourceOptions {
  /** `service.secrets.key_file`. */
  keyFile?: string
  /** The environment to read REGENT_SECRETS_KEY from. */
  env?: NodeJS.ProcessEnv
  /** The data folder the generated key file goes in. */
  dataDir: string
}

/**
 * Resolves the key source (generating the data folder's key file when nothing is configured).
 * @throws SecretKeyError when the configured keys are missing, malformed or readable by others.
 */
export function openSecretKeySource(options: KeySourceOptions): SecretKeySource {
  if (options.keyFile !== undefined) return new FileKeySource(options.keyFile, 'service.secrets.key_file')
  const fromEnv = (options.env ?? process.env)[SECRETS_KEY_ENV]
  if (fromEnv !== undefined && fromEnv.trim() !== '') return new EnvKeySource(fromEnv)
  const file = join(options.dataDir, GENERATED_KEY_FILE)
  makePrivateDir(options.dataDir)
  try {
    writeNewPrivateFile(file, formatKeyring(new Keyring([generateSecretKey()])))
  } catch (err) {
    // Another start made it first, or it is there from an earlier run: use it.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
  }
  return new FileKeySource(file, 'the generated key file')
}

class EnvKeySource implements SecretKeySource {
  readonly description = SECRETS_KEY_ENV
  private readonly keyring: Keyring

  constructor(text: string) {
    this.keyring = parseKeyring(text, SECRETS_KEY_ENV)
  }

  current(): Keyring {
    return this.keyring
  }

  replace(): void {
    throw new SecretKeyError(
      `the keys come from ${SECRETS_KEY_ENV}, which regent cannot change: put the new key first in it (comma-separated) and restart`,
    )
  }
}

class FileKeySource implements SecretKeySource {
  readonly description: string
  private keyring: Keyring
  private stamp: string

  constructor(
    readonly file: string,
    what: string,
  ) {
    this.description = `key file ${file}`
    const { keyring, stamp } = readKeyFile(file, what)
    this.keyring = keyring
    this.stamp = stamp
  }

  current(): Keyring {
    const stamp = fileStamp(this.file)
    if (stamp !== undefined && stamp !== this.stamp) {
      const fresh = readKeyFile(this.file, this.description)
      this.keyring = fresh.keyring
      this.stamp = fresh.stamp
    }
    return this.keyring
  }

  replace(keyring: Keyring): void {
    // Written next to the file and renamed over it: a reader sees the old or the new keys, whole.
    const temporary = `${this.file}.${process.pid}.tmp`
    rmSync(temporary, { force: true }) // left over by a run that died between write and rename
    writeNewPrivateFile(temporary, formatKeyring(keyring))
    renameSync(temporary, this.file)
    this.keyring = keyring
    this.stamp = fileStamp(this.file) ?? ''
  }
}

function fileStamp(file: string): string | undefined {
  try {
    const stat = statSync(file)
    return `${stat.size}:${stat.mtimeMs}:${stat.ino}`
  } catch {
    return undefined
  }
}

function readKeyFile(file: string, what: string): { keyring: Keyring; stamp: string } {
  let mode: number
  try {
    mode = statSync(file).mode & 0o777
  } catch (err) {
    throw new SecretKeyError(`${what} ${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? err}`)
  }
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    throw new SecretKeyError(
      `${what} ${file} is accessible to other users (mode 0${mode.toString(8)}); restrict it with chmod 600 (in Kubernetes: defaultMode: 0400)`,
    )
  }
  const stamp = fileStamp(file) ?? ''
  return { keyring: parseKeyring(readFileSync(file, 'utf8'), `${what} ${file}`), stamp }
}
