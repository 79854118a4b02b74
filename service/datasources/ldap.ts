/**
 * Category `ldap`: one search (the `search` object) against the first server of `urls` that
 * answers, the others being replicas tried in order when a server cannot be reached. ldapts does
 * the protocol: `ldaps://` is TLS from the start; `ldap://` with a `ca_certificate` or a client
 * certificate upgrades with StartTLS first. `credentials` names a login secret for a simple
 * bind (../secrets/login.ts: its name is the bind DN, its value the password; anonymous without it). `page_size` > 0
 * asks for paged results. Each entry becomes `{dn, <attribute>: [values…]}`: every attribute an
 * array of strings, so policies need not care whether an attribute happened to have one value.
 */
import { Client, type Entry, InvalidCredentialsError } from 'ldapts'
import { z } from 'zod'
import { emptyUserProblem } from '../secrets/login.js'
import {
  bothOrNeitherFilter,
  common,
  mtlsPair,
  poller,
  rateLimiter,
  regoFiltering,
  requiredText,
  secretId,
  tlsSettings,
} from './mixins.js'
import { defineCategory, type FetchContext, type Fetched, RunError } from './types.js'

const text = () => z.string({ error: 'expected a string' })
const RANGE = 'expected an integer from 0 to 4294967295'

const search = z.strictObject(
  {
    base_DN: requiredText('the base DN'),
    filter: requiredText('the LDAP filter'),
    attributes: z.array(text(), { error: 'expected an array of attribute names' }).optional(),
    deref: z
      .enum(['never', 'searching', 'finding', 'always'], {
        error: 'expected one of never, searching, finding, always',
      })
      .default('never'),
    scope: z
      .enum(['base-object', 'single-level', 'whole-subtree'], {
        error: 'expected one of base-object, single-level, whole-subtree',
      })
      .default('whole-subtree'),
    page_size: z
      .number({ error: RANGE })
      .int({ error: RANGE })
      .min(0, { error: RANGE })
      .max(4294967295, { error: RANGE })
      .optional(),
  },
  { error: 'required: the search object {base_DN, filter, …}' },
)

const schema = z
  .strictObject({
    category: z.literal('ldap'),
    ...common,
    ...poller,
    ...regoFiltering,
    ...tlsSettings,
    ...rateLimiter,
    credentials: secretId().optional(),
    urls: z
      .array(
        text().regex(/^ldaps?:\/\/[^/]+\/?$/i, {
          error: 'expected ldap://host[:port] or ldaps://host[:port]',
        }),
        {
          error: 'required: the servers',
        },
      )
      .min(1, { error: 'expected at least one server' }),
    search,
  })
  .superRefine(bothOrNeitherFilter)
  .superRefine(mtlsPair)

type LdapConfig = z.output<typeof schema>

const SCOPES = { 'base-object': 'base', 'single-level': 'one', 'whole-subtree': 'sub' } as const
const DEREFS = { never: 'never', searching: 'search', finding: 'find', always: 'always' } as const

/** The simple bind `credentials` names; LDAP has no tokens, so the secret's name (the DN) is required. */
async function bindCredentials(
  config: LdapConfig,
  ctx: FetchContext,
): Promise<{ dn: string; password: string } | undefined> {
  if (config.credentials === undefined) return undefined
  const { user, secret } = await ctx.login(config.credentials, 'credentials')
  if (user === '')
    throw new RunError(
      `secret error: credentials: ${emptyUserProblem(config.credentials, 'bind DN', 'password')}`,
    )
  return { dn: user, password: secret }
}

/** An entry as stored: its DN and every attribute as an array of strings. */
function entryDocument(entry: Entry): Record<string, unknown> {
  const out: Record<string, unknown> = { dn: entry.dn }
  for (const [name, value] of Object.entries(entry)) {
    if (name === 'dn') continue
    const values = Array.isArray(value) ? value : [value]
    out[name] = values.map((v) => (Buffer.isBuffer(v) ? v.toString('base64') : String(v)))
  }
  return out
}

/** Connection failures worth trying the next replica for (not refusals by a server that answered). */
function unreachable(err: unknown): boolean {
  const code = (err as { code?: unknown }).code
  const message = err instanceof Error ? err.message : ''
  return (
    (typeof code === 'string' &&
      /^(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|ETIMEDOUT|EAI_AGAIN)$/.test(code)) ||
    /connect|timeout|socket/i.test(message)
  )
}

async function searchOne(url: string, config: LdapConfig, ctx: FetchContext): Promise<Entry[]> {
  const key =
    config.mtls_private_key_secret_id === undefined
      ? undefined
      : await ctx.secret(config.mtls_private_key_secret_id, 'mtls_private_key_secret_id')
  const tlsOptions = {
    ...(config.ca_certificate !== undefined ? { ca: config.ca_certificate } : {}),
    ...(config.mtls_certificate !== undefined ? { cert: config.mtls_certificate, key } : {}),
    rejectUnauthorized: !config.skip_tls_verification,
  }
  const secure = url.toLowerCase().startsWith('ldaps://')
  // NOTE(datasources): ldapts connects with TLS whenever tlsOptions are given, even for ldap://.
  const client = new Client({
    url,
    timeout: 30_000,
    connectTimeout: 10_000,
    ...(secure ? { tlsOptions } : {}),
  })
  const abort = () => void client.unbind().catch(() => {})
  ctx.signal.addEventListener('abort', abort, { once: true })
  try {
    const startTls = !secure && (config.ca_certificate !== undefined || config.mtls_certificate !== undefined)
    // The upgraded socket knows no host name: without it the certificate is checked against "localhost".
    if (startTls)
      await client.startTLS({ ...tlsOptions, host: new URL(url).hostname.replace(/^\[|\]$/g, '') })
    const login = await bindCredentials(config, ctx)
    if (login) await client.bind(login.dn, login.password)
    const { search: s } = config
    const { searchEntries } = await client.search(s.base_DN, {
      scope: SCOPES[s.scope],
      filter: s.filter,
      derefAliases: DEREFS[s.deref],
      ...(s.attributes ? { attributes: s.attributes } : {}),
      ...(s.page_size ? { paged: { pageSize: s.page_size } } : {}),
    })
    return searchEntries
  } finally {
    ctx.signal.removeEventListener('abort', abort)
    await client.unbind().catch(() => {})
  }
}

async function fetchLdap(config: LdapConfig, ctx: FetchContext): Promise<Fetched> {
  const failures: string[] = []
  for (const url of config.urls) {
    try {
      const entries = await ctx.gate.run(() => searchOne(url, config, ctx), ctx.signal)
      const content = entries.map(entryDocument)
      const size = Buffer.byteLength(JSON.stringify(content))
      if (size > ctx.maxBytes)
        throw new RunError(`size limit: the search answered more than ${ctx.maxBytes} bytes`)
      return { content, size }
    } catch (err) {
      if (err instanceof RunError) throw err
      if (err instanceof InvalidCredentialsError)
        throw new RunError(`auth error: ${url}: invalid credentials`)
      const message = err instanceof Error ? err.message : String(err)
      const code = (err as { code?: unknown }).code
      const reason =
        typeof code === 'string' && /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME/.test(code)
          ? `TLS error: ${code}: ${message}`
          : message
      if (ctx.signal.aborted || !unreachable(err)) throw new RunError(`ldap error: ${url}: ${reason}`)
      failures.push(`${url}: ${reason}`)
    }
  }
  throw new RunError(`connection error: no server answered (${failures.join('; ')})`)
}

/** The `ldap` category. */
export const ldapCategory = defineCategory({ category: 'ldap', schema, mode: 'poll', fetch: fetchLdap })
