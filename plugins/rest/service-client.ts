/**
 * One upstream service as OPA's rest client sees it: its URL, fixed headers, credentials
 * (bearer token re-read from `token_path` on every request, client TLS, SigV4 for S3-compatible
 * registries), CA and timeouts. The relay's upstream credentials live here and only here:
 * agents talk to the relay without any.
 */
import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import type { Agent } from 'node:http'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { AwsV4Signer } from 'aws4fetch'
import { readKeyFile } from '../../core/key-files.js'
import type { ServiceConfig } from '../config.js'
import { createAgent, sendRequest, type TlsOptions, type UpstreamResponse } from './http-request.js'

/** A service that cannot be used as configured; the message names the key. */
export class ServiceConfigError extends Error {}

/** Per-request options. */
export interface UpstreamRequest {
  method: 'GET' | 'POST'
  /** Resource path relative to the service URL; slashes at either end are ignored. */
  resource: string
  headers?: Record<string, string>
  body?: Uint8Array | string
  /** Time to the response headers; undefined means the service's `response_header_timeout_seconds`. */
  headersTimeoutMs?: number
  /** Longest silence while the body streams. */
  bodyTimeoutMs?: number
  signal?: AbortSignal
}

type S3Credentials = { accessKeyId: string; secretAccessKey: string; sessionToken?: string; region: string }

/** An HTTP client bound to one `services.<name>` entry. */
export class ServiceClient {
  readonly url: string
  private readonly agent: Agent
  /** `response_header_timeout_seconds` in ms (also the longest silence while a body streams). */
  readonly defaultHeadersTimeoutMs: number

  private readonly env: NodeJS.ProcessEnv
  private readonly userAgent: string

  constructor(
    readonly name: string,
    private readonly config: ServiceConfig,
    options: { env?: NodeJS.ProcessEnv; userAgent?: string } = {},
  ) {
    this.env = options.env ?? process.env
    this.userAgent = options.userAgent ?? 'regent-relay'
    this.url = config.url.replace(/\/+$/, '')
    this.defaultHeadersTimeoutMs = config.response_header_timeout_seconds * 1000
    this.agent = createAgent(this.url, this.tlsOptions(), 30_000)
    const creds = config.credentials ?? {}
    const unsupported = Object.keys(creds).filter((k) => !['bearer', 'client_tls', 's3_signing'].includes(k))
    if (unsupported.length > 0) {
      throw new ServiceConfigError(
        `services.${name}.credentials.${unsupported[0]}: not supported by the relay (use bearer, client_tls or s3_signing)`,
      )
    }
    if (creds.bearer && creds.bearer.token === undefined && creds.bearer.token_path === undefined) {
      throw new ServiceConfigError(`services.${name}.credentials.bearer: set token or token_path`)
    }
    if (creds.s3_signing) this.s3Credentials()
  }

  /** The full URL of a resource (OPA: service URL + `/` + resource with slashes trimmed). */
  urlOf(resource: string): string {
    return `${this.url}/${resource.replace(/^\/+|\/+$/g, '')}`
  }

  /** Sends one request with the service's headers and credentials. */
  async send(req: UpstreamRequest): Promise<UpstreamResponse> {
    const url = this.urlOf(req.resource)
    let headers: Record<string, string> = {
      'User-Agent': this.userAgent,
      ...this.config.headers,
      ...req.headers,
    }
    const bearer = this.config.credentials?.bearer
    if (bearer) headers.Authorization = `${bearer.scheme} ${await this.bearerToken()}`
    if (this.config.credentials?.s3_signing) headers = await this.signS3(req.method, url, headers, req.body)
    return sendRequest(url, {
      method: req.method,
      headers,
      body: req.body,
      agent: this.agent,
      headersTimeoutMs: req.headersTimeoutMs ?? this.defaultHeadersTimeoutMs,
      // NOTE(relay): OPA has no body timeout; the relay treats silence mid-body as long as the
      // header timeout as a hung upstream, so a stalled download cannot hold a puller forever.
      bodyTimeoutMs: req.bodyTimeoutMs ?? this.defaultHeadersTimeoutMs,
      signal: req.signal,
    })
  }

  /** Closes pooled connections (and any request still running on them: close is for shutdown). */
  async close(): Promise<void> {
    this.agent.destroy()
  }

  private async bearerToken(): Promise<string> {
    const bearer = this.config.credentials!.bearer!
    if (bearer.token_path === undefined) return bearer.token ?? ''
    // Re-read on every request, as OPA does, so a rotated token is picked up without a restart.
    return (await readFile(bearer.token_path, 'utf8')).trim()
  }

  private tlsOptions(): TlsOptions {
    const where = `services.${this.name}`
    const options: TlsOptions = {}
    const read = (path: string, key: string) => {
      try {
        return readKeyFile(path, `${where}.${key}`)
      } catch (err) {
        throw new ServiceConfigError((err as Error).message)
      }
    }
    if (this.config.tls?.ca_cert) options.ca = read(this.config.tls.ca_cert, 'tls.ca_cert')
    const clientTls = this.config.credentials?.client_tls
    if (clientTls) {
      options.cert = read(clientTls.cert, 'credentials.client_tls.cert')
      options.key = read(clientTls.private_key, 'credentials.client_tls.private_key')
      if (clientTls.private_key_passphrase) options.passphrase = clientTls.private_key_passphrase
    }
    if (this.config.allow_insecure_tls) options.rejectUnauthorized = false
    return options
  }

  private s3Credentials(): S3Credentials {
    const s3 = this.config.credentials!.s3_signing!
    const where = `services.${this.name}.credentials.s3_signing`
    if (s3.environment_credentials) {
      const { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN } = this.env
      if (!AWS_ACCESS_KEY_ID || !AWS_SECRET_ACCESS_KEY) {
        throw new ServiceConfigError(
          `${where}.environment_credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set`,
        )
      }
      return {
        accessKeyId: AWS_ACCESS_KEY_ID,
        secretAccessKey: AWS_SECRET_ACCESS_KEY,
        sessionToken: AWS_SESSION_TOKEN || undefined,
        region: this.env.AWS_REGION || this.env.AWS_DEFAULT_REGION || 'us-east-1',
      }
    }
    if (s3.profile_credentials) {
      const profile = s3.profile_credentials
      const path =
        profile.path ?? this.env.AWS_SHARED_CREDENTIALS_FILE ?? join(homedir(), '.aws', 'credentials')
      const name = profile.profile ?? this.env.AWS_PROFILE ?? 'default'
      const section = readIniSection(path, name, `${where}.profile_credentials`)
      if (!section.aws_access_key_id || !section.aws_secret_access_key) {
        throw new ServiceConfigError(`${where}.profile_credentials: profile "${name}" in ${path} lacks keys`)
      }
      return {
        accessKeyId: section.aws_access_key_id,
        secretAccessKey: section.aws_secret_access_key,
        sessionToken: section.aws_session_token,
        region: profile.aws_region ?? this.env.AWS_REGION ?? 'us-east-1',
      }
    }
    throw new ServiceConfigError(
      `${where}: set environment_credentials or profile_credentials (others are not supported)`,
    )
  }

  private async signS3(
    method: string,
    url: string,
    headers: Record<string, string>,
    body: Uint8Array | string | undefined,
  ): Promise<Record<string, string>> {
    const creds = this.s3Credentials()
    const signer = new AwsV4Signer({
      method,
      url,
      headers,
      body: body as ConstructorParameters<typeof AwsV4Signer>[0]['body'],
      ...creds,
      service: this.config.credentials?.s3_signing?.service ?? 's3',
    })
    const signed = await signer.sign()
    return Object.fromEntries(signed.headers.entries())
  }
}

function readIniSection(path: string, name: string, where: string): Record<string, string> {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    throw new ServiceConfigError(`${where}: cannot read ${path}: ${(err as NodeJS.ErrnoException).code}`)
  }
  const values: Record<string, string> = {}
  let inSection = false
  for (const line of text.split(/\r?\n/)) {
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(line)
    if (header) {
      inSection = header[1]!.trim() === name
      continue
    }
    const pair = /^\s*([\w.]+)\s*=\s*(.*?)\s*$/.exec(line)
    if (inSection && pair) values[pair[1]!] = pair[2]!
  }
  return values
}
