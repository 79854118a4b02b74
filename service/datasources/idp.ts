/**
 * Category `idp`: users, groups, roles and applications of an Okta-style identity provider.
 * A token comes first from the tenant's OAuth2 client-credentials endpoint
 * (`<idp_tenant>/oauth2/v1/token`, the client id and the secret `idp_client_secret` in HTTP Basic);
 * then each list the `idp_enable_*` switches leave on is read page after page, following the
 * `Link: <…>; rel="next"` header (or the `_links.next.href` of Okta's IAM role lists). A next
 * link to another origin than the tenant is refused: the bearer token never leaves the tenant.
 */
import { z } from 'zod'
import { nextLink } from './link-header.js'
import { bothOrNeitherFilter, common, poller, regoFiltering, requiredText, secretId } from './mixins.js'
import { defineCategory, type FetchContext, type Fetched, RunError } from './types.js'

const text = () => z.string({ error: 'expected a string' })
const enable = () => z.boolean({ error: 'expected true or false' }).optional()

const schema = z
  .strictObject({
    category: z.literal('idp'),
    ...common,
    ...poller,
    ...regoFiltering,
    idp_tenant: text()
      .regex(/^https?:\/\/[^/]/i, {
        error: 'expected a URL with its protocol, e.g. https://example.okta.com',
      })
      .refine((value) => URL.canParse(value), { error: 'expected a URL, e.g. https://example.okta.com' }),
    idp_client_id: requiredText('the client id'),
    idp_client_secret: secretId(),
    idp_enable_apps: enable(),
    idp_enable_groups: enable(),
    idp_enable_roles: enable(),
    idp_enable_users: enable(),
  })
  .superRefine(bothOrNeitherFilter)

type IdpConfig = z.output<typeof schema>

/** The lists read, the switch of each, where each lives and the scope its token needs. */
const LISTS = [
  { key: 'users', flag: 'idp_enable_users', path: '/api/v1/users', scope: 'okta.users.read' },
  { key: 'groups', flag: 'idp_enable_groups', path: '/api/v1/groups', scope: 'okta.groups.read' },
  { key: 'roles', flag: 'idp_enable_roles', path: '/api/v1/iam/roles', scope: 'okta.roles.read' },
  { key: 'apps', flag: 'idp_enable_apps', path: '/api/v1/apps', scope: 'okta.apps.read' },
] as const

/** Items asked for per page (Okta's maximum for users and groups). */
const PAGE_LIMIT = 200
/** Pages one list may have at most: a server that links forever fails the run instead. */
export const MAX_PAGES = 10_000

interface Reader {
  ctx: FetchContext
  size: number
}

async function send(
  reader: Reader,
  url: string,
  init: RequestInit,
): Promise<{ response: Response; body: string }> {
  const { ctx } = reader
  const response = await ctx.gate
    .run(() => fetch(url, { ...init, redirect: 'manual', signal: ctx.signal }), ctx.signal)
    .catch((err: unknown) => {
      if (ctx.signal.aborted) throw new RunError(`timeout: ${url} did not answer in time`)
      const cause = (err as { cause?: { code?: string } }).cause?.code
      throw new RunError(
        `connection error: ${url}: ${cause ?? (err instanceof Error ? err.message : String(err))}`,
      )
    })
  const bytes = new Uint8Array(await response.arrayBuffer())
  reader.size += bytes.byteLength
  if (reader.size > ctx.maxBytes)
    throw new RunError(`size limit: the identity provider answered more than ${ctx.maxBytes} bytes`)
  const path = url.split('?')[0]
  if (response.status === 401 || response.status === 403)
    throw new RunError(`auth error: ${path} answered ${response.status}`)
  if (!response.ok) throw new RunError(`http error: ${path} answered ${response.status}`)
  return { response, body: new TextDecoder().decode(bytes) }
}

function parseJson(body: string, url: string): unknown {
  try {
    return JSON.parse(body)
  } catch {
    throw new RunError(`decode error: ${url.split('?')[0]} did not answer JSON`)
  }
}

async function accessToken(
  config: IdpConfig,
  tenant: string,
  scopes: string[],
  reader: Reader,
): Promise<string> {
  const secret = await reader.ctx.secret(config.idp_client_secret, 'idp_client_secret')
  const url = `${tenant}/oauth2/v1/token`
  const basic = Buffer.from(
    `${encodeURIComponent(config.idp_client_id)}:${encodeURIComponent(secret)}`,
  ).toString('base64')
  const { body } = await send(reader, url, {
    method: 'POST',
    headers: {
      authorization: `Basic ${basic}`,
      accept: 'application/json',
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: scopes.join(' ') }).toString(),
  })
  const token = (parseJson(body, url) as { access_token?: unknown } | null)?.access_token
  if (typeof token !== 'string' || token === '')
    throw new RunError(`auth error: ${url} answered no access_token`)
  return token
}

/** Every item of one list, page after page. */
async function readList(first: string, tenant: string, token: string, reader: Reader): Promise<unknown[]> {
  const items: unknown[] = []
  const seen = new Set<string>()
  let url: string | undefined = first
  while (url) {
    if (seen.has(url))
      throw new RunError(`pagination error: ${url.split('?')[0]} links back to a page already read`)
    if (seen.size >= MAX_PAGES)
      throw new RunError(`size limit: more than ${MAX_PAGES} pages from ${first.split('?')[0]}`)
    seen.add(url)
    const { response, body } = await send(reader, url, {
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    })
    const page = parseJson(body, url) as unknown
    // Users, groups and apps are arrays; Okta's IAM role list is {roles: [...], _links: {next}}.
    const roles = page as { roles?: unknown; _links?: { next?: { href?: unknown } } } | null
    if (Array.isArray(page)) items.push(...page)
    else if (roles && Array.isArray(roles.roles)) items.push(...roles.roles)
    else throw new RunError(`decode error: ${url.split('?')[0]} did not answer a list`)
    const href = roles?._links?.next?.href
    const next: string | undefined =
      nextLink(response.headers.get('link'), url) ??
      (typeof href === 'string' ? new URL(href, url).toString() : undefined)
    if (next && new URL(next).origin !== tenant)
      throw new RunError(
        `pagination error: the next page ${next.split('?')[0]} is not on the tenant ${tenant}`,
      )
    url = next
  }
  return items
}

async function fetchIdp(config: IdpConfig, ctx: FetchContext): Promise<Fetched> {
  const tenant = new URL(config.idp_tenant).origin
  // A switch left out reads its list: the switches exist to turn lists off.
  const lists = LISTS.filter((list) => config[list.flag] !== false)
  const reader: Reader = { ctx, size: 0 }
  const content: Record<string, unknown[]> = {}
  if (lists.length === 0) return { content, size: 0 }
  const token = await accessToken(
    config,
    tenant,
    lists.map((list) => list.scope),
    reader,
  )
  for (const list of lists)
    content[list.key] = await readList(`${tenant}${list.path}?limit=${PAGE_LIMIT}`, tenant, token, reader)
  return { content, size: reader.size }
}

/** The `idp` category. */
export const idpCategory = defineCategory({ category: 'idp', schema, mode: 'poll', fetch: fetchIdp })
