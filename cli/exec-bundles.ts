/**
 * The bundles an OPA configuration names, downloaded once for `regent exec -c`: each `bundles.<name>`
 * is fetched from its service (credentials, TLS and S3 signing as the relay uses them) and verified
 * as an agent would verify it, then written to a temporary folder so the loader reads it like a
 * `-b` bundle. Discovery is not followed: exec evaluates what the file names.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig, parseConfig } from '../core/config.js'
import type { TargetState } from '../plugins/bundle/bundle-cache.js'
import { fetchBundle } from '../plugins/bundle/fetch-bundle.js'
import { resolveTargets } from '../plugins/bundle/targets.js'
import { verifyDownload } from '../plugins/bundle/verify.js'
import { ServiceClient } from '../plugins/rest/service-client.js'
import { relayConfigSchema } from '../relay/config.js'
import { configTextWithOverrides } from './config-overrides.js'
import { REGENT_VERSION } from './version-info.js'

/** Downloaded bundle files and how to remove them. */
export interface DownloadedBundles {
  paths: string[]
  /** Each downloaded bundle's revision by name (the `bundles` of decision-log events). */
  revisions: Record<string, { revision: string }>
  /** Each download as the bundle plugin records it (for the status report's `bundles`). */
  states: TargetState[]
  /** The configuration's `default_decision`, when it sets one. */
  defaultDecision: string | undefined
  cleanup(): Promise<void>
}

/** `--set`/`--set-file` overrides of the configuration (cli/config-overrides.ts). */
export interface ConfigOverrides {
  sets: readonly string[]
  setFiles: readonly string[]
}

/** Called once per bundle downloaded and verified (for the command's log). */
export type BundleDownloaded = (name: string, bytes: number) => void

/**
 * Downloads and verifies every bundle of the configuration at `file` (or, without a file, the
 * one the overrides alone describe), with the overrides applied before validation.
 * @throws ConfigError for a bad file; OverrideError for a bad override; Error naming the bundle
 *   when a download or verification fails.
 */
export async function downloadConfiguredBundles(
  file: string | undefined,
  overrides: ConfigOverrides = { sets: [], setFiles: [] },
  onDownloaded: BundleDownloaded = () => {},
): Promise<DownloadedBundles> {
  const overridden = overrides.sets.length + overrides.setFiles.length > 0
  const config = overridden
    ? parseConfig(
        configTextWithOverrides(file, overrides.sets, overrides.setFiles) ?? '{}',
        relayConfigSchema,
        {
          ...(file ? { file } : {}),
        },
      )
    : loadConfig(file, relayConfigSchema)
  const clients = new Map(
    Object.entries(config.services).map(([name, service]) => [
      name,
      new ServiceClient(name, service, { userAgent: `regent-exec/${REGENT_VERSION}` }),
    ]),
  )
  const dir = await mkdtemp(join(tmpdir(), 'regent-exec-'))
  const cleanup = () => rm(dir, { recursive: true, force: true })
  try {
    const paths: string[] = []
    const revisions: Record<string, { revision: string }> = {}
    const states: TargetState[] = []
    for (const target of resolveTargets(config).filter((t) => t.kind === 'bundle')) {
      const client = clients.get(target.service)
      if (!client) throw new Error(`bundle ${target.name}: no service named "${target.service}"`)
      const named = (err: unknown) => new Error(`bundle ${target.name}: ${(err as Error).message}`)
      const fetched = await fetchBundle(client, target.resource, { maxBytes: target.sizeLimitBytes }).catch(
        (err) => {
          throw named(err)
        },
      )
      if (fetched.kind !== 'modified') throw new Error(`bundle ${target.name}: the service sent no bundle`)
      const verified = await verifyDownload(fetched.bytes, target).catch((err) => {
        throw named(err)
      })
      revisions[target.name] = { revision: verified.revision }
      const now = new Date()
      states.push({
        target,
        served: {
          bytes: fetched.bytes,
          etag: fetched.etag ?? '',
          revision: verified.revision,
          verifiedAt: now,
          source: 'upstream',
        },
        lastRequest: now,
        lastSuccessfulRequest: now,
        lastSuccessfulDownload: now,
        rejections: {},
      })
      onDownloaded(target.name, fetched.bytes.byteLength)
      const path = join(dir, `${paths.length}.tar.gz`)
      await writeFile(path, fetched.bytes)
      paths.push(path)
    }
    const raw = (config as { default_decision?: unknown }).default_decision
    return { paths, revisions, states, defaultDecision: typeof raw === 'string' ? raw : undefined, cleanup }
  } catch (err) {
    await cleanup()
    throw err
  }
}
