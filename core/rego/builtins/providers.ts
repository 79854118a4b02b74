/**
 * providers.aws.sign_req: AWS Signature Version 4 for a request object, as OPA signs it (headers
 * `Authorization`, `host`, `x-amz-content-sha256`, `x-amz-date`, and `x-amz-security-token` with a
 * session token), ready to pass to http.send.
 */
import { createHash, createHmac } from 'node:crypto'
import { t } from '../types/index.js'
import type { ObjectValue, Value } from '../values/index.js'
import {
  formatValue,
  isArray,
  isNumberValue,
  isObject,
  toBigInt,
  toJSONText,
  Value as V,
} from '../values/index.js'
import { defineBuiltin } from './define.js'
import { OperandError } from './errors.js'
import { objectOperand } from './operands.js'

const IGNORED_HEADERS = new Set(['authorization', 'user-agent', 'x-amzn-trace-id'])

function keysText(keys: string[]): string {
  return formatValue(V.set(keys))
}

/** Required string fields; OPA reports all missing, then all non-string ones. */
function requireStrings(
  obj: ObjectValue,
  keys: string[],
  position: number,
  what: string,
): Partial<Record<string, string>> {
  const missing = keys.filter((k) => !obj.has(k))
  if (missing.length)
    throw new OperandError(position, `missing required ${what} parameters(s): ${keysText(missing)}`)
  const invalid = keys.filter((k) => typeof obj.get(k) !== 'string')
  if (invalid.length)
    throw new OperandError(
      position,
      `invalid values for required ${what} parameters(s): ${keysText(invalid)}`,
    )
  return Object.fromEntries(keys.map((k) => [k, obj.get(k) as string]))
}

const sha256 = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex')
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest()

function amzDate(ns: bigint): string {
  return new Date(Number(ns / 1_000_000n))
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '')
}

export const awsSignReq = defineBuiltin({
  name: 'providers.aws.sign_req',
  category: 'providers.aws',
  description:
    'Signs an HTTP request object for Amazon Web Services. Currently implements [AWS Signature Version 4 request signing](https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-authenticating-requests.html) by the `Authorization` header method.',
  args: [
    t.named('request', t.object(t.string, t.any), 'HTTP request object'),
    t.named('aws_config', t.object(t.string, t.any), 'AWS configuration object'),
    t.named('time_ns', t.number, 'nanoseconds since the epoch'),
  ],
  result: t.named(
    'signed_request',
    t.object(t.any, t.any),
    'HTTP request object with `Authorization` header',
  ),
  impl: (_ctx, [r, c, n]) => {
    const req = objectOperand(r, 1)
    const fields = requireStrings(req, ['method', 'url'], 1, 'request')
    const method = fields.method as string
    const url = fields.url as string
    const config = objectOperand(c, 2)
    const creds = requireStrings(
      config,
      ['aws_access_key', 'aws_region', 'aws_secret_access_key', 'aws_service'],
      2,
      'AWS config',
    )
    const token = config.get('aws_session_token')
    const unsignedFlag = config.get('disable_payload_signing')
    if (unsignedFlag !== undefined && typeof unsignedFlag !== 'boolean') {
      throw new OperandError(2, "invalid value for 'disable_payload_signing' in AWS config")
    }
    const ns = isNumberValue(n) ? toBigInt(n) : undefined
    if (ns === undefined || ns < 0n)
      throw new OperandError(3, 'could not convert time_ns value into a unix timestamp')

    const target = new URL(url)
    const date = amzDate(ns)
    const day = date.slice(0, 8)
    const raw = req.get('raw_body')
    const body = req.get('body')
    const payload = typeof raw === 'string' ? raw : body !== undefined ? toJSONText(body) : ''
    const payloadHash = unsignedFlag === true ? 'UNSIGNED-PAYLOAD' : sha256(payload)

    // As OPA's SignV4: the AWS headers, overridden by the request's own headers (lowercased, except
    // ignored ones), values joined with ",", the path and query exactly as written in the URL.
    const toSignHeaders = new Map<string, string>([
      ['host', target.host],
      ['x-amz-date', date],
    ])
    if (creds.aws_service === 's3' || creds.aws_service === 'glacier')
      toSignHeaders.set('x-amz-content-sha256', payloadHash)
    if (typeof token === 'string' && token !== '') toSignHeaders.set('x-amz-security-token', token)
    const given = req.get('headers')
    if (isObject(given)) {
      for (const [k, v] of given.entries()) {
        const name = String(k).toLowerCase()
        if (IGNORED_HEADERS.has(name)) continue
        toSignHeaders.set(
          name,
          typeof v === 'string' ? v : isArray(v) ? v.map(String).join(',') : toJSONText(v),
        )
      }
    }
    const signedNames = [...toSignHeaders.keys()].sort()
    const signedHeaders = signedNames.join(';')
    const rawUrl = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*([^?#]*)(?:\?([^#]*))?/.exec(url)
    const canonicalRequest = [
      method,
      rawUrl?.[1] ?? '',
      rawUrl?.[2] ?? '',
      ...signedNames.map((k) => `${k}:${toSignHeaders.get(k)}`),
      '',
      signedHeaders,
      payloadHash,
    ].join('\n')
    const scope = `${day}/${creds.aws_region}/${creds.aws_service}/aws4_request`
    const toSign = ['AWS4-HMAC-SHA256', date, scope, sha256(canonicalRequest)].join('\n')
    let key = hmac(`AWS4${creds.aws_secret_access_key}`, day)
    for (const part of [creds.aws_region ?? '', creds.aws_service ?? '', 'aws4_request'])
      key = hmac(key, part)
    const signature = createHmac('sha256', key).update(toSign, 'utf8').digest('hex')

    const outHeaders = isObject(given) ? given.copy() : V.object()
    for (const name of [...outHeaders.keys()]) {
      if (
        typeof name === 'string' &&
        ['host', 'x-amz-content-sha256', 'x-amz-date', 'authorization'].includes(name.toLowerCase())
      )
        outHeaders.delete(name)
    }
    outHeaders.set(
      'Authorization',
      `AWS4-HMAC-SHA256 Credential=${creds.aws_access_key}/${scope},SignedHeaders=${signedHeaders},Signature=${signature}`,
    )
    outHeaders.set('host', target.host)
    outHeaders.set('x-amz-content-sha256', payloadHash)
    outHeaders.set('x-amz-date', date)
    if (typeof token === 'string' && token !== '') outHeaders.set('x-amz-security-token', token)
    return req.copy().set('headers', outHeaders) satisfies Value
  },
})

/** The providers.* built-ins. */
export const PROVIDERS = [awsSignReq] as const
