/**
 * `cloud/ecr` against a local server on 127.0.0.1 answering the ECR JSON 1.1 API
 * (DescribeRepositories, DescribeImages; `X-Amz-Target`), reached through `AWS_ENDPOINT_URL_ECR`.
 * The server checks that every request carries a well-formed SigV4 Authorization header for the
 * configured region and service and recomputes its signature with the secret key it knows, so a
 * wrong secret is refused as AWS refuses it. Repositories and images come over several pages
 * (nextToken); `RegistryId` reaches the API; a refusal fails the run and keeps the last good data.
 * SQLite and (when configured) PostgreSQL.
 */
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { AwsV4Signer } from 'aws4fetch'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readBundle } from '../../../core/bundle/index.js'
import { BACKENDS } from '../../store/backends.js'
import { startTestService, type TestService } from '../harness.js'

const ACCESS_KEY_ID = 'AKIAREGENTTEST000001'
const SECRET_ACCESS_KEY = 'regent/secret+key=0123456789'
const REGION = 'eu-west-1'
const OWN_REGISTRY = '111111111111'
const OTHER_REGISTRY = '222222222222'
const TARGET = 'AmazonEC2ContainerRegistry_V20150921'
const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/

interface Status {
  code: string
  message: string
  items: number | null
}

const REPOSITORIES = ['api', 'web', 'worker']
const image = (repo: string, registryId: string, i: number) => ({
  registryId,
  repositoryName: repo,
  imageDigest: `sha256:${repo}${i}`.padEnd(71, '0'),
  imageTags: [`v${i}`],
  imageSizeInBytes: 1000 + i,
  imagePushedAt: 1_700_000_000 + i,
})

/** An ECR-shaped API: what it was asked, and the problems it found with the signing. */
function ecrServer() {
  const state = {
    calls: [] as Array<{ target: string; input: Record<string, unknown> }>,
    problems: [] as string[],
  }
  const readBody = async (req: IncomingMessage) => {
    let body = ''
    for await (const chunk of req) body += chunk
    return body
  }
  /** Why the request's SigV4 signature is not the one AWS would accept; undefined when it is. */
  const signatureProblem = async (req: IncomingMessage, body: string): Promise<string | undefined> => {
    const match = AUTHORIZATION.exec(req.headers.authorization ?? '')
    if (!match) return `malformed Authorization: ${req.headers.authorization}`
    const [, keyId, date, region, service, signedHeaders] = match
    const amzDate = String(req.headers['x-amz-date'] ?? '')
    if (!/^\d{8}T\d{6}Z$/.test(amzDate) || amzDate.slice(0, 8) !== date) return `bad x-amz-date ${amzDate}`
    if (region !== REGION || service !== 'ecr') return `scope ${region}/${service}`
    const signed = signedHeaders?.split(';') ?? []
    for (const needed of ['host', 'x-amz-date', 'x-amz-target'])
      if (!signed.includes(needed)) return `${needed} is not signed`
    if (keyId !== ACCESS_KEY_ID) return 'UnrecognizedClientException'
    const headers: Record<string, string> = {}
    for (const name of signed) if (name !== 'host') headers[name] = String(req.headers[name] ?? '')
    const expected = await new AwsV4Signer({
      method: req.method,
      url: `http://${req.headers.host}${req.url}`,
      headers,
      body,
      accessKeyId: ACCESS_KEY_ID,
      secretAccessKey: SECRET_ACCESS_KEY,
      service: 'ecr',
      region: REGION,
      datetime: amzDate,
    }).sign()
    return expected.headers.get('authorization') === req.headers.authorization
      ? undefined
      : 'InvalidSignatureException'
  }
  const server = createServer(async (req, res) => {
    const body = await readBody(req)
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' })
      res.end(JSON.stringify(value))
    }
    const problem = await signatureProblem(req, body)
    if (problem) {
      state.problems.push(problem)
      const type = problem === 'InvalidSignatureException' ? problem : 'UnrecognizedClientException'
      return json(400, { __type: type, message: 'The security token included in the request is invalid.' })
    }
    if (req.method !== 'POST' || req.headers['content-type'] !== 'application/x-amz-json-1.1')
      return json(400, { __type: 'SerializationException' })
    const target = String(req.headers['x-amz-target'] ?? '')
    const input = JSON.parse(body) as Record<string, unknown>
    state.calls.push({ target, input })
    const registryId = typeof input.registryId === 'string' ? input.registryId : OWN_REGISTRY
    // Two items a page whatever maxResults asks, so every listing here takes pages.
    const offset = Number(input.nextToken ?? 0)
    const paged = <T>(all: T[]) => ({
      items: all.slice(offset, offset + 2),
      nextToken: offset + 2 < all.length ? String(offset + 2) : undefined,
    })
    if (target === `${TARGET}.DescribeRepositories`) {
      const { items, nextToken } = paged(REPOSITORIES)
      return json(200, {
        repositories: items.map((name) => ({
          registryId,
          repositoryName: name,
          repositoryArn: `arn:aws:ecr:${REGION}:${registryId}:repository/${name}`,
          repositoryUri: `${registryId}.dkr.ecr.${REGION}.amazonaws.com/${name}`,
          imageTagMutability: 'IMMUTABLE',
        })),
        nextToken,
      })
    }
    if (target === `${TARGET}.DescribeImages`) {
      const repo = String(input.repositoryName)
      const count = repo === 'api' ? 3 : repo === 'web' ? 1 : 0
      const { items, nextToken } = paged(Array.from({ length: count }, (_, i) => image(repo, registryId, i)))
      return json(200, { imageDetails: items, nextToken })
    }
    return json(400, { __type: 'UnknownOperationException' })
  })
  return { server, state }
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`cloud/ecr datasource on ${backend.name}`, () => {
    let t: TestService
    let ecr: ReturnType<typeof ecrServer>
    let endpoint: string
    const previousEndpoint = process.env.AWS_ENDPOINT_URL_ECR
    const put = async (name: string, extra: Record<string, unknown> = {}) => {
      const res = await t.json<{ message?: string }>('PUT', `/v1/datasources/systems/app/${name}`, {
        body: { category: 'cloud/ecr', region: REGION, credentials: 'aws/keys', rate_limit: 100, ...extra },
      })
      expect(res.status, res.body.message).toBe(200)
    }
    const run = async (name: string) => {
      const res = await t.json<{ result: Status; message?: string }>(
        'POST',
        `/v1/datasources/systems/app/${name}`,
      )
      expect(res.status, res.body.message).toBe(200)
      return res.body.result
    }
    const bundleData = async () => {
      const bytes = new Uint8Array(await (await t.call('GET', '/v1/bundles/systems/app')).arrayBuffer())
      return (await readBundle(bytes)).data as Record<string, unknown>
    }

    beforeAll(async () => {
      ecr = ecrServer()
      await new Promise<void>((resolve) => ecr.server.listen(0, '127.0.0.1', resolve))
      endpoint = `http://127.0.0.1:${(ecr.server.address() as AddressInfo).port}`
      process.env.AWS_ENDPOINT_URL_ECR = endpoint
      t = await startTestService(backend, 'datasources: {scheduler_interval: 1h}')
      await t.json('PUT', '/v1/systems/app', {
        body: { name: 'app', type: 'custom' },
        headers: { 'If-None-Match': '*' },
      })
      // Login secrets: the name is the access key id, the value the secret access key.
      for (const [id, name, secret] of [
        ['aws/keys', ACCESS_KEY_ID, SECRET_ACCESS_KEY],
        ['aws/wrong-secret', ACCESS_KEY_ID, 'not-the-key'],
        ['aws/no-key-id', '', SECRET_ACCESS_KEY],
      ])
        expect((await t.json('PUT', `/v1/secrets/${id}`, { body: { name, secret } })).status).toBe(200)
    })
    afterAll(async () => {
      await t?.close()
      await new Promise((resolve) => ecr?.server.close(resolve))
      if (previousEndpoint === undefined) delete process.env.AWS_ENDPOINT_URL_ECR
      else process.env.AWS_ENDPOINT_URL_ECR = previousEndpoint
    })

    it('reads every repository and its images, page by page, with signed requests', async () => {
      ecr.state.calls.length = 0
      ecr.state.problems.length = 0
      await put('registry')
      expect(await run('registry')).toMatchObject({ code: 'ok' })
      expect(ecr.state.problems).toEqual([])
      const repositories = (
        (await bundleData()).registry as { repositories: Record<string, { images: unknown[] }> }
      ).repositories
      expect(Object.keys(repositories).sort()).toEqual(REPOSITORIES)
      expect(repositories.api).toMatchObject({
        registryId: OWN_REGISTRY,
        repositoryUri: `${OWN_REGISTRY}.dkr.ecr.${REGION}.amazonaws.com/api`,
      })
      expect(repositories.api?.images).toEqual([0, 1, 2].map((i) => image('api', OWN_REGISTRY, i)))
      expect(repositories.web?.images).toEqual([image('web', OWN_REGISTRY, 0)])
      expect(repositories.worker?.images).toEqual([])
      // 2 pages of repositories, 2 of api's images, 1 each for web and worker.
      expect(ecr.state.calls.map((c) => c.target.split('.')[1])).toEqual([
        'DescribeRepositories',
        'DescribeRepositories',
        'DescribeImages',
        'DescribeImages',
        'DescribeImages',
        'DescribeImages',
      ])
      expect(ecr.state.calls.every((c) => c.input.registryId === undefined)).toBe(true)
    })

    it('passes RegistryId to every call', async () => {
      ecr.state.calls.length = 0
      await put('other', { RegistryId: OTHER_REGISTRY })
      expect(await run('other')).toMatchObject({ code: 'ok' })
      expect(ecr.state.calls.every((c) => c.input.registryId === OTHER_REGISTRY)).toBe(true)
      const repositories = ((await bundleData()).other as { repositories: Record<string, unknown> })
        .repositories
      expect(repositories.web).toMatchObject({ registryId: OTHER_REGISTRY })
    })

    it('refuses a RegistryId that is not an account id, naming the field', async () => {
      const res = await t.json<{ message?: string }>('PUT', '/v1/datasources/systems/app/bad', {
        body: { category: 'cloud/ecr', region: REGION, credentials: 'aws/keys', RegistryId: 'x' },
      })
      expect(res.status).toBe(400)
      expect(res.body.message).toContain('RegistryId: expected a 12-digit AWS account id')
    })

    it('fails when the signature does not verify and keeps the last good data', async () => {
      await put('registry', { credentials: 'aws/wrong-secret' })
      ecr.state.problems.length = 0
      expect(await run('registry')).toMatchObject({
        code: 'error',
        message: 'auth error: DescribeRepositories answered 400 InvalidSignatureException',
      })
      expect(ecr.state.problems).toEqual(['InvalidSignatureException'])
      const kept = (await bundleData()).registry as { repositories: Record<string, unknown> }
      expect(Object.keys(kept.repositories).sort()).toEqual(REPOSITORIES)
    })

    it('refuses a login secret without a name (the access key id), naming the secret', async () => {
      await put('no-key-id', { credentials: 'aws/no-key-id' })
      expect(await run('no-key-id')).toMatchObject({
        code: 'error',
        message:
          'secret error: credentials: secret "aws/no-key-id" has an empty name (a login secret\'s name is the access key id and its value the secret access key)',
      })
    })
  })
}
