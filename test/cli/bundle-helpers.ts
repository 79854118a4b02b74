/** Shared setup for the build, sign and inspect command tests: temp folders, captured output, keys. */
import { generateKeyPairSync } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { CommandIo } from '../../cli/commands/sign.js'

/** Output a command wrote, captured. */
export interface Captured extends CommandIo {
  out: string
  err: string
}

/** An io that records what a command prints. */
export function captureIo(): Captured {
  const io: Captured = {
    out: '',
    err: '',
    stdout: (text) => {
      io.out += text
    },
    stderr: (text) => {
      io.err += text
    },
  }
  return io
}

/** A fresh temp folder and a cleanup for it. */
export async function tempFolder(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'regent-cli-bundle-'))
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) }
}

/** Writes `files` (relative path -> content) under `root`. */
export async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true })
    await writeFile(join(root, path), content)
  }
}

/** A PEM key pair written to `dir` (private.pem, public.pem) for RSA or an EC curve. */
export async function writeKeys(dir: string, kind: 'rsa' | 'ec' = 'rsa') {
  const pair =
    kind === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  const privatePem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
  const publicPem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString()
  await writeFile(join(dir, `${kind}-private.pem`), privatePem)
  await writeFile(join(dir, `${kind}-public.pem`), publicPem)
  return {
    privatePath: join(dir, `${kind}-private.pem`),
    publicPath: join(dir, `${kind}-public.pem`),
    publicPem,
  }
}

/** Default option values commander would fill in for `regent build`. */
export const BUILD_DEFAULTS = {
  output: 'bundle.tar.gz',
  signingAlg: 'RS256',
  verificationKeyId: 'default',
  optimize: '0',
  target: 'rego',
}
