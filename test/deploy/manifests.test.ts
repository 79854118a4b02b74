/**
 * deploy/kubernetes must start on a real cluster: every manifest validates offline against the
 * Kubernetes API definitions (kubernetes-schema.ts), and the examples agree with each other and
 * with the image: numeric ids matching the Dockerfile's USER (the kubelet cannot check
 * `runAsNonRoot` against a name), a Service for every StatefulSet's `serviceName`, probes and
 * resources on every container, config maps and secrets that exist, a relay config that the
 * relay's own loader accepts and that is persistent exactly where the volume is, and agents that
 * verify the signed bundles with the same key as the relay. `.ci/run` runs this through `npm test`.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parse, parseAllDocuments } from 'yaml'
import { loadRelayConfig } from '../../cli/commands/relay.js'
import type { RelayConfig } from '../../relay/index.js'
import { type ManifestDocument, schemaProblems, unknownFieldProblems } from './kubernetes-schema.js'

const ROOT = new URL('../../', import.meta.url)
const DIR = new URL('deploy/kubernetes/', ROOT)

type Tree = Record<string, unknown>
const obj = (value: unknown): Tree => (value && typeof value === 'object' ? (value as Tree) : {})
const list = (value: unknown): Tree[] => (Array.isArray(value) ? value.map(obj) : [])

function loadManifests(): ManifestDocument[] {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml'))
  return files.flatMap((file) =>
    parseAllDocuments(readFileSync(new URL(file, DIR), 'utf8'))
      .map((document, index) => {
        expect(document.errors, `${file}#${index}`).toEqual([])
        const body = obj(document.toJS())
        return { file, index, apiVersion: String(body.apiVersion), kind: String(body.kind), body }
      })
      .filter((doc) => Object.keys(doc.body).length > 0),
  )
}

const docs = loadManifests()
const named = (kind: string, name: string) =>
  docs.find((d) => d.kind === kind && obj(d.body.metadata).name === name)
const workloads = docs.filter((d) => d.kind === 'Deployment' || d.kind === 'StatefulSet')
const podSpec = (workload: ManifestDocument) => obj(obj(obj(workload.body.spec).template).spec)
const containers = (workload: ManifestDocument) => list(podSpec(workload).containers)
const relayContainer = (workload: ManifestDocument) =>
  containers(workload).find((c) => (c.args as string[] | undefined)?.[0] === 'relay')

/** The file a container reads at `path`, from the ConfigMap volume mounted over it. */
function mountedFile(workload: ManifestDocument, container: Tree, path: string): string {
  const mount = list(container.volumeMounts).find((m) => path.startsWith(`${m.mountPath}/`))
  expect(mount, `${workload.file}: no volume mounted for ${path}`).toBeDefined()
  const volume = list(podSpec(workload).volumes).find((v) => v.name === mount?.name)
  const mapName = String(obj(volume?.configMap).name)
  const map = named('ConfigMap', mapName)
  expect(map, `${workload.file}: ConfigMap ${mapName} is not in deploy/kubernetes`).toBeDefined()
  const key = path.slice(String(mount?.mountPath).length + 1)
  const text = obj(map?.body.data)[key]
  expect(typeof text, `${workload.file}: ConfigMap ${mapName} has no key ${key}`).toBe('string')
  return text as string
}

const scratch = mkdtempSync(join(tmpdir(), 'regent-manifests-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** The relay config a workload mounts, read by the relay's own loader (the one `regent relay` uses). */
function relayConfigOf(workload: ManifestDocument): RelayConfig {
  const relay = relayContainer(workload)!
  const args = relay.args as string[]
  const path = args[args.indexOf('-c') + 1]!
  const file = join(scratch, `${workload.kind}-relay.yaml`)
  writeFileSync(file, mountedFile(workload, relay, path))
  return loadRelayConfig(file, {})
}

describe('deploy/kubernetes: schemas', () => {
  it('holds the documented examples', () => {
    expect(docs.map((d) => `${d.kind}/${obj(d.body.metadata).name}`).sort()).toEqual([
      'ConfigMap/opa-agent-config',
      'ConfigMap/regent-relay-config',
      'ConfigMap/regent-relay-config-persistent',
      'Deployment/policy-agent',
      'Secret/regent-relay-upstream',
      'Service/policy-agent',
      'StatefulSet/policy-agent',
    ])
  })

  it('every document validates against the Kubernetes JSON schema of its apiVersion and kind', async () => {
    expect(await schemaProblems(docs)).toEqual([])
  })

  it('no document has a field its kind does not define (strict, as kubectl --validate=strict)', () => {
    expect(unknownFieldProblems(docs)).toEqual([])
  }, 60_000)

  it('the validators catch what they are here for', async () => {
    const deployment = docs.find((d) => d.kind === 'Deployment')!
    const broken = structuredClone(deployment)
    const spec = podSpec(broken)
    obj(spec.securityContext).runAsUser = 'node'
    list(spec.containers)[0]!.livenessprobe = {}
    const schema = await schemaProblems([broken])
    expect(schema.join('\n')).toMatch(/runAsUser must be integer/)
    expect(unknownFieldProblems([broken]).join('\n')).toMatch(/livenessprobe.*does not exist/)
  }, 60_000)
})

describe('deploy/kubernetes: consistency', () => {
  const dockerUser = /^USER\s+(\S+)/m.exec(readFileSync(new URL('Dockerfile', ROOT), 'utf8'))?.[1]

  it('the image runs as a numeric user and group', () => {
    expect(dockerUser).toMatch(/^\d+:\d+$/)
  })

  it.each(workloads.map((w) => [w.kind, w]))('%s runs as non-root with the image’s numeric ids', (_, w) => {
    const pod = obj(podSpec(w).securityContext)
    const [uid, gid] = String(dockerUser).split(':').map(Number)
    expect(pod.runAsNonRoot).toBe(true)
    expect(pod.runAsUser).toBe(uid)
    expect(pod.runAsGroup).toBe(gid)
    expect(pod.fsGroup).toBe(gid)
  })

  it.each(workloads.map((w) => [w.kind, w]))('%s: every container has probes and resources', (_, w) => {
    for (const c of containers(w)) {
      expect(c.livenessProbe, `${c.name} livenessProbe`).toBeDefined()
      expect(c.readinessProbe, `${c.name} readinessProbe`).toBeDefined()
      const resources = obj(c.resources)
      expect(obj(resources.requests), `${c.name} requests`).toHaveProperty('cpu')
      expect(obj(resources.requests), `${c.name} requests`).toHaveProperty('memory')
      expect(obj(resources.limits), `${c.name} limits`).toHaveProperty('memory')
    }
  })

  it.each(workloads.map((w) => [w.kind, w]))('%s: every ConfigMap and Secret it mounts exists', (_, w) => {
    for (const volume of list(podSpec(w).volumes)) {
      if (volume.configMap) expect(named('ConfigMap', String(obj(volume.configMap).name))).toBeDefined()
      if (volume.secret) expect(named('Secret', String(obj(volume.secret).secretName))).toBeDefined()
    }
  })

  it('every StatefulSet names a headless Service that selects its pods', () => {
    for (const set of docs.filter((d) => d.kind === 'StatefulSet')) {
      const serviceName = String(obj(set.body.spec).serviceName)
      const service = named('Service', serviceName)
      expect(service, `Service ${serviceName}`).toBeDefined()
      expect(obj(service?.body.spec).clusterIP).toBe('None')
      const labels = obj(obj(obj(obj(set.body.spec).template).metadata).labels)
      expect(labels).toMatchObject(obj(obj(service?.body.spec).selector))
    }
  })

  it.each(workloads.map((w) => [w.kind, w]))(
    '%s: the relay config parses and is persistent exactly when its volume is a claim',
    (_, w) => {
      const config = relayConfigOf(w)
      const relay = relayContainer(w)!
      const dataMount = list(relay.volumeMounts).find((m) =>
        config.relay.storage.dir.startsWith(`${m.mountPath}/`),
      )
      expect(dataMount, 'relay.storage.dir is on a mounted volume').toBeDefined()
      const claims = list(obj(w.body.spec).volumeClaimTemplates).map((t) => obj(t.metadata).name)
      const onClaim = claims.includes(dataMount?.name)
      const onEmptyDir = list(podSpec(w).volumes).some((v) => v.name === dataMount?.name && v.emptyDir)
      expect(onClaim || onEmptyDir).toBe(true)
      expect(config.relay.storage.persistent).toBe(onClaim)
    },
  )

  it('the two relay configs differ only in relay.storage.persistent', () => {
    const [plain, persistent] = ['regent-relay-config', 'regent-relay-config-persistent'].map((name) =>
      obj(parse(String(obj(named('ConfigMap', name)?.body.data)['relay.yaml']))),
    )
    obj(obj(obj(persistent).relay).storage).persistent = false
    expect(persistent).toEqual(plain)
  })

  it.each(workloads.map((w) => [w.kind, w]))(
    '%s: agents and relay verify the signed bundles with the same key, through the relay',
    (_, w) => {
      const relayConfig = relayConfigOf(w)
      const opa = containers(w).find((c) => c.name === 'opa')!
      const configArg = (opa.args as string[]).find((a) => a.startsWith('--config-file='))!
      const agent = obj(parse(mountedFile(w, opa, configArg.slice('--config-file='.length))))
      const relayRaw = obj(relayConfig)
      for (const [who, config] of [
        ['agent', agent],
        ['relay', relayRaw],
      ] as const) {
        const bundles = Object.entries(obj(config.bundles))
        expect(bundles.length, `${who} bundles`).toBeGreaterThan(0)
        for (const [name, bundle] of bundles) {
          const keyid = obj(obj(bundle).signing).keyid
          expect(keyid, `${who} bundles.${name}.signing.keyid`).toBeTypeOf('string')
          expect(obj(config.keys), `${who} keys`).toHaveProperty(String(keyid))
        }
      }
      expect(obj(agent.keys)).toEqual(obj(relayRaw.keys))
      expect(list(agent.services)[0]?.url).toBe(`http://${relayConfig.relay.addr}/v1`)
    },
  )

  it.each(workloads.map((w) => [w.kind, w]))(
    '%s: the relay’s exec probes use the image’s health check',
    (_, w) => {
      const relay = relayContainer(w)!
      for (const probe of [relay.livenessProbe, relay.readinessProbe]) {
        const command = obj(obj(probe).exec).command as string[]
        expect(command.slice(0, 2)).toEqual(['node', '/app/bin/healthcheck.js'])
      }
      expect(readdirSync(new URL('bin/', ROOT))).toContain('healthcheck.js')
    },
  )
})
