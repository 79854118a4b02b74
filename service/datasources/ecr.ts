/**
 * Category `cloud/ecr`: the repositories of an AWS ECR registry and the images in each, read with
 * the ECR API (JSON 1.1 protocol: POST with `X-Amz-Target:
 * AmazonEC2ContainerRegistry_V20150921.<Action>`), DescribeRepositories then DescribeImages per
 * repository, every page by `nextToken`, every request signed with SigV4 (aws4fetch) and passing
 * the run's request gate (`rate_limit`). `RegistryId` picks another account's registry (the
 * caller's own without it). `credentials` names a login secret (../secrets/login.ts: its name the
 * access key id, its value the secret access key). The endpoint is
 * `https://api.ecr.<region>.amazonaws.com`, or what `AWS_ENDPOINT_URL_ECR` (then
 * `AWS_ENDPOINT_URL`) says in the service's environment, the AWS SDKs' own override
 * (VPC endpoints, test doubles).
 */
import { AwsClient } from 'aws4fetch'
import { z } from 'zod'
import { emptyUserProblem } from '../secrets/login.js'
import { bothOrNeitherFilter, cloudCommon, common, poller, rateLimiter, regoFiltering } from './mixins.js'
import { defineCategory, type FetchContext, type Fetched, RunError } from './types.js'

const schema = z
  .strictObject({
    category: z.literal('cloud/ecr'),
    ...common,
    ...rateLimiter,
    ...poller,
    ...regoFiltering,
    ...cloudCommon,
    RegistryId: z
      .string({ error: 'expected a string' })
      .regex(/^[0-9]{12}$/, { error: 'expected a 12-digit AWS account id' })
      .optional(),
  })
  .superRefine(bothOrNeitherFilter)

type EcrConfig = z.output<typeof schema>

const TARGET_PREFIX = 'AmazonEC2ContainerRegistry_V20150921'
/** ECR's largest page. */
const PAGE_SIZE = 1000
/** Pages one listing may have at most: a server handing out tokens forever fails the run. */
export const MAX_PAGES = 10_000

/** Where the ECR API of `region` is reached. */
export function ecrEndpoint(region: string, env: NodeJS.ProcessEnv = process.env): string {
  const override = env.AWS_ENDPOINT_URL_ECR || env.AWS_ENDPOINT_URL
  const endpoint = (override || `https://api.ecr.${region}.amazonaws.com`).replace(/\/+$/, '')
  if (!/^https?:\/\/[^/]/i.test(endpoint))
    throw new RunError(`config error: the ECR endpoint ${endpoint} is not an http(s) URL`)
  return `${endpoint}/`
}

interface Caller {
  client: AwsClient
  url: string
  ctx: FetchContext
  size: number
}

/** One ECR action; its JSON answer. */
async function call(
  caller: Caller,
  action: string,
  input: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const { ctx, url } = caller
  const response = await ctx.gate
    .run(
      () =>
        caller.client.fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-amz-json-1.1',
            'x-amz-target': `${TARGET_PREFIX}.${action}`,
          },
          body: JSON.stringify(input),
          signal: ctx.signal,
        }),
      ctx.signal,
    )
    .catch((err: unknown) => {
      if (ctx.signal.aborted) throw new RunError(`timeout: ${url} did not answer in time`)
      const cause = (err as { cause?: { code?: string } }).cause?.code
      throw new RunError(
        `connection error: ${url}: ${cause ?? (err instanceof Error ? err.message : String(err))}`,
      )
    })
  const text = await response.text()
  caller.size += Buffer.byteLength(text)
  if (caller.size > ctx.maxBytes)
    throw new RunError(`size limit: the registry answered more than ${ctx.maxBytes} bytes`)
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    body = undefined
  }
  if (!response.ok) {
    // JSON 1.1 errors: {"__type": "…#UnrecognizedClientException", "message": "…"}.
    const type = String((body as { __type?: unknown } | undefined)?.__type ?? '')
      .split('#')
      .pop()
    const auth =
      response.status === 401 ||
      response.status === 403 ||
      /UnrecognizedClient|InvalidSignature|AccessDenied|ExpiredToken/.test(type ?? '')
    throw new RunError(
      `${auth ? 'auth error' : 'http error'}: ${action} answered ${response.status}${type ? ` ${type}` : ''}`,
    )
  }
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new RunError(`decode error: ${action} did not answer a JSON object`)
  return body as Record<string, unknown>
}

/** Every item under `field` of `action`'s pages. */
async function listAll(
  caller: Caller,
  action: string,
  input: Record<string, unknown>,
  field: string,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = []
  let nextToken: string | undefined
  let pages = 0
  do {
    if (++pages > MAX_PAGES) throw new RunError(`size limit: ${action} has more than ${MAX_PAGES} pages`)
    const page = await call(caller, action, {
      ...input,
      maxResults: PAGE_SIZE,
      ...(nextToken ? { nextToken } : {}),
    })
    const list = page[field] ?? []
    if (!Array.isArray(list))
      throw new RunError(`decode error: ${action} answered ${field} that is not a list`)
    items.push(...(list as Record<string, unknown>[]))
    nextToken = typeof page.nextToken === 'string' && page.nextToken !== '' ? page.nextToken : undefined
  } while (nextToken)
  return items
}

async function fetchEcr(config: EcrConfig, ctx: FetchContext): Promise<Fetched> {
  const { user, secret } = await ctx.login(config.credentials, 'credentials')
  if (user === '')
    throw new RunError(
      `secret error: credentials: ${emptyUserProblem(config.credentials, 'access key id', 'secret access key')}`,
    )
  const client = new AwsClient({
    accessKeyId: user,
    secretAccessKey: secret,
    service: 'ecr',
    region: config.region,
  })
  const caller: Caller = { client, url: ecrEndpoint(config.region), ctx, size: 0 }
  const registry = config.RegistryId ? { registryId: config.RegistryId } : {}
  const repositories = await listAll(caller, 'DescribeRepositories', registry, 'repositories')
  // Keyed by repository name (unique in a registry), so policies look a repository up directly.
  const content: Record<string, unknown> = {}
  for (const repository of repositories) {
    const name = repository.repositoryName
    if (typeof name !== 'string' || name === '')
      throw new RunError('decode error: DescribeRepositories answered a repository without repositoryName')
    const images = await listAll(
      caller,
      'DescribeImages',
      { ...registry, repositoryName: name },
      'imageDetails',
    )
    content[name] = { ...repository, images }
  }
  return { content: { repositories: content }, size: caller.size }
}

/** The `cloud/ecr` category. */
export const cloudEcrCategory = defineCategory({
  category: 'cloud/ecr',
  schema,
  mode: 'poll',
  fetch: fetchEcr,
})
