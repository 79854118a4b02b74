import { describe, expect, it } from 'vitest'
import { compile, parseModule } from '../../../../core/rego/index.js'
import { toJSONText } from '../../../../core/rego/values/index.js'
import { boundXAsync, type ErrorCase, expectErrorsAsync } from './eval-errors.js'

const B = 'eval_builtin_error' as const
const T = 'eval_type_error' as const
// Nothing listens on port 9 of the loopback; no case here gets as far as connecting.
const URL = '"http://127.0.0.1:9/x"'
const send = (fields: string, code: ErrorCase['code'], message: string): ErrorCase => ({
  query: `x := http.send({${fields}})`,
  code,
  message: `http.send: ${message}`,
})

// OPA's v1/topdown/http.go: builtinHTTPSend, validateHTTPRequestOperand, getRaiseErrorValue,
// createHTTPRequest and parseTimeout. Key checks are operand errors (eval_type_error); the
// options createHTTPRequest reads fail with plain errors (eval_builtin_error), except the
// timeout's type.
describe('http.send request errors', () => {
  it('words key, option and timeout errors as OPA does', async () => {
    await expectErrorsAsync([
      send(
        `"method": "get", "url": ${URL}, "bad_key": 1`,
        T,
        'operand 1 invalid request parameters(s): {"bad_key"}',
      ),
      send(
        `"method": "get", "url": ${URL}, "b": 1, "a": 2`,
        T,
        'operand 1 invalid request parameters(s): {"a", "b"}',
      ),
      send('"method": "get"', T, 'operand 1 missing required request parameters(s): {"url"}'),
      send('"timeout": "1s"', T, 'operand 1 missing required request parameters(s): {"method", "url"}'),
      send(`"method": "get", "url": ${URL}, "raise_error": "no"`, B, 'invalid value for raise_error field'),
      send(`"method": 1, "url": ${URL}`, B, '"method" must be a string'),
      send('"method": "get", "url": 5', B, '"url" must be a string'),
      send(
        `"method": "get", "url": ${URL}, "tls_server_name": true`,
        B,
        '"tls_server_name" must be a string',
      ),
      send(
        `"method": "get", "url": ${URL}, "enable_redirect": "yes"`,
        B,
        'strconv.ParseBool: parsing "\\"yes\\"": invalid syntax',
      ),
      send(
        `"method": "get", "url": ${URL}, "tls_insecure_skip_verify": 2`,
        B,
        'strconv.ParseBool: parsing "2": invalid syntax',
      ),
      send(`"method": "get", "url": ${URL}, "headers": ["a"]`, B, 'invalid type for headers key'),
      send(`"method": "get", "url": ${URL}, "headers": {"a": 1}`, B, 'invalid type for headers value "1"'),
      send(
        `"method": "get", "url": ${URL}, "headers": {"a": true}`,
        B,
        'invalid type for headers value %!q(bool=true)',
      ),
      send(
        `"method": "get", "url": ${URL}, "timeout": "soon"`,
        B,
        'invalid timeout value "soon": time: invalid duration "soon"',
      ),
    ])
    await expectErrorsAsync([
      send(
        `"method": "get", "url": ${URL}, "timeout": 1.5`,
        B,
        'invalid timeout number value 1.5, must be int64',
      ),
      send(
        `"method": "get", "url": ${URL}, "timeout": true`,
        T,
        "operand 1 'timeout' must be one of {string, number} but got boolean",
      ),
      send(
        `"method": "get", "url": ${URL}, "force_json_decode": "yes"`,
        B,
        'invalid value for "force_json_decode" field',
      ),
      send(
        `"method": "get", "url": ${URL}, "max_retry_attempts": -1`,
        B,
        'invalid value -1 for field "max_retry_attempts"',
      ),
      send(
        `"method": "get", "url": ${URL}, "max_retry_attempts": "2"`,
        B,
        'invalid value "2" for field "max_retry_attempts"',
      ),
      send('"method": "get", "url": "nope"', B, 'Get "nope": unsupported protocol scheme ""'),
      send('"method": "post", "url": "ftp://h/x"', B, 'Post "ftp://h/x": unsupported protocol scheme "ftp"'),
    ])
  })

  it('refuses a host outside allow_net with OPA words', async () => {
    await expectErrorsAsync(
      [send(`"method": "get", "url": ${URL}`, B, 'unallowed host: 127.0.0.1')],
      ['example.com'],
    )
  })

  it('answers with an error response, not an error, when raise_error is false', async () => {
    const soft = (fields: string, allowNet?: readonly string[]) =>
      boundXAsync(`x := http.send({"raise_error": false, ${fields}})`, allowNet)
    expect(await soft(`"method": "get", "url": ${URL}, "headers": ["a"]`)).toBe(
      '{"error":{"code":"eval_http_send_internal_error","message":"invalid type for headers key"},"status_code":0}',
    )
    expect(await soft(`"method": "get", "url": ${URL}, "timeout": true`)).toBe(
      `{"error":{"code":"eval_http_send_internal_error","message":"operand 1 'timeout' must be one of {string, number} but got boolean"},"status_code":0}`,
    )
    expect(await soft('"method": "get", "url": "nope"')).toBe(
      '{"error":{"code":"eval_http_send_network_error","message":"Get \\"nope\\": unsupported protocol scheme \\"\\""},"status_code":0}',
    )
    expect(await soft(`"method": "get", "url": ${URL}`, ['example.com'])).toBe(
      '{"error":{"code":"eval_http_send_internal_error","message":"unallowed host: 127.0.0.1"},"status_code":0}',
    )
  })

  it('puts the whole evaluation error, its location first, in the response for a bad key', async () => {
    const src = `package p\n\nr := x if {\n\tx := http.send({"method": "get", "url": ${URL}, "raise_error": false, "bad": 1})\n}\n`
    const policy = compile({ 'p.rego': parseModule(src, { file: 'p.rego' }) }, {})
    const run = await policy.prepare('data.p.r').eval({})
    const value = run.results[0]?.expressions[0]?.value
    expect(value === undefined ? undefined : toJSONText(value)).toBe(
      '{"error":{"code":"eval_http_send_internal_error","message":"p.rego:4: eval_type_error: http.send: operand 1 invalid request parameters(s): {\\"bad\\"}"},"status_code":0}',
    )
  })
})
