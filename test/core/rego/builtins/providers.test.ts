import { describe, expect, it } from 'vitest'
import { expectError, json } from './helpers.js'

const CONFIG = {
  aws_access_key: 'MYAWSACCESSKEYGOESHERE',
  aws_secret_access_key: 'MYAWSSECRETACCESSKEYGOESHERE',
  aws_service: 's3',
  aws_region: 'us-east-1',
}
const NS = 'json:1451311705000000000'

describe('providers.aws.sign_req', () => {
  it('signs requests with SigV4 as OPA does', () => {
    const out = JSON.parse(
      json('providers.aws.sign_req', { method: 'get', url: 'http://example.com' }, CONFIG, NS),
    )
    expect(out.headers).toEqual({
      Authorization:
        'AWS4-HMAC-SHA256 Credential=MYAWSACCESSKEYGOESHERE/20151228/us-east-1/s3/aws4_request,SignedHeaders=host;x-amz-content-sha256;x-amz-date,Signature=0047a7016c81e5c7f29cd522f97e911e04fc472fced0aee7916cbc287ad6c8e3',
      host: 'example.com',
      'x-amz-content-sha256': 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      'x-amz-date': '20151228T140825Z',
    })
    const withBody = JSON.parse(
      json(
        'providers.aws.sign_req',
        { method: 'get', url: 'http://example.com', body: { example: new Set([1, 2, 3, 4]) } },
        CONFIG,
        NS,
      ),
    )
    expect(withBody.headers['x-amz-content-sha256']).toBe(
      'bacff6243c850423883052ac3c336fd645994442933408dfd3f9e858e69bda07',
    )
    const unsigned = JSON.parse(
      json(
        'providers.aws.sign_req',
        { method: 'get', url: 'https://example.com', headers: { foo: 'bar' } },
        { ...CONFIG, disable_payload_signing: true },
        NS,
      ),
    )
    expect(unsigned.headers['x-amz-content-sha256']).toBe('UNSIGNED-PAYLOAD')
    expect(unsigned.headers.Authorization).toContain(
      'SignedHeaders=foo;host;x-amz-content-sha256;x-amz-date,Signature=c6e6db654e92172f71e18c714c123711de069ac6fd7df1348e5b28fd05532028',
    )
    const withToken = JSON.parse(
      json(
        'providers.aws.sign_req',
        { method: 'get', url: 'http://example.com/a?b=c' },
        { ...CONFIG, aws_session_token: 'tok' },
        NS,
      ),
    )
    expect(withToken.headers['x-amz-security-token']).toBe('tok')
    expect(withToken.headers.Authorization).toContain('x-amz-security-token')
  })

  it('reports operand problems with OPA wording', () => {
    expectError(
      'eval_type_error',
      'operand 1 missing required request parameters(s): {"method", "url"}',
      'providers.aws.sign_req',
      {},
      CONFIG,
      NS,
    )
    expectError(
      'eval_type_error',
      'operand 1 invalid values for required request parameters(s): {"method", "url"}',
      'providers.aws.sign_req',
      { method: 1, url: [] },
      CONFIG,
      NS,
    )
    expectError(
      'eval_type_error',
      'operand 2 missing required AWS config parameters(s): {"aws_access_key", "aws_region", "aws_secret_access_key", "aws_service"}',
      'providers.aws.sign_req',
      { method: 'get', url: 'http://x' },
      {},
      NS,
    )
    expectError(
      'eval_type_error',
      "operand 2 invalid value for 'disable_payload_signing' in AWS config",
      'providers.aws.sign_req',
      { method: 'get', url: 'http://x' },
      { ...CONFIG, disable_payload_signing: 'false' },
      NS,
    )
    expectError(
      'eval_type_error',
      'operand 3 could not convert time_ns value into a unix timestamp',
      'providers.aws.sign_req',
      { method: 'get', url: 'http://x' },
      CONFIG,
      -1e9,
    )
  })
})
