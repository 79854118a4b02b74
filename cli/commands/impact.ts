/**
 * `regent impact record` (alias `liactl record`, as the reference tool): live impact analysis.
 * Sends the candidate bundle to a running `regent run -s` (`POST /v0/impact`), which for
 * `--duration` evaluates a `--sample-rate` share of the decisions it serves against the candidate
 * too and streams each difference back; the rows are then reported (cli/impact/report.ts).
 * Exit codes as the reference's: 1 for errors, and with `--fail-any` when anything was found.
 */
import { readFile, stat, writeFile } from 'node:fs/promises'
import { Command, Option } from 'commander'
import { parse as parseLossless } from 'lossless-json'
import { Agent, request } from 'undici'
import { readBundle, writeBundle } from '../../core/bundle/index.js'
import { buildReport, type ImpactRecord, renderReport } from '../impact/report.js'
import { parseDuration } from './eval.js'

interface RecordOptions {
  addr: string
  bundle?: string
  duration: string
  equals?: boolean
  failAny?: boolean
  format: 'json' | 'csv' | 'pretty'
  group?: boolean
  limit: string
  output: string
  sampleRate: string
  tlsCaCertFile?: string
  tlsCertFile?: string
  tlsPrivateKeyFile?: string
  tlsSkipVerification?: boolean
}

/** Builds `impact` with its `record` subcommand. */
export function impactCommand(): Command {
  const impact = new Command('impact').alias('liactl').description('live impact analysis control')
  impact.addCommand(
    new Command('record')
      .description('record the impact of a candidate bundle on the decisions of a running server')
      .option('-a, --addr <url>', 'address of the regent run -s server', 'http://127.0.0.1:8181')
      .option('-b, --bundle <path>', 'candidate bundle (.tar.gz, binary bundle or directory)')
      .option('-d, --duration <duration>', 'how long to record (e.g. 30s, 5m)', '30s')
      .option('--equals', 'also report samples whose results are equal')
      .option('--fail-any', 'exit 1 when anything was recorded')
      .addOption(
        new Option('-f, --format <format>', 'output format')
          .choices(['json', 'csv', 'pretty'])
          .default('pretty'),
      )
      .option('--group', 'group the report by path and input')
      .option('--limit <n>', 'report at most N rows (grouped: most frequent first)', '0')
      .option('-o, --output <file>', 'write the report to a file ("-" for stdout)', '-')
      .option('--sample-rate <rate>', 'share of decisions to sample (0.1 for 10%, 1 for all)', '0.1')
      .option('--tls-ca-cert-file <file>', 'CA certificate to verify the server with')
      .option('--tls-cert-file <file>', 'client certificate')
      .option('--tls-private-key-file <file>', 'client certificate key')
      .option('--tls-skip-verification', 'do not verify the server certificate')
      .action(async (options: RecordOptions) => {
        try {
          process.exitCode = await record(options)
        } catch (err) {
          process.stderr.write(`error: ${(err as Error).message}\n`)
          process.exitCode = 1
        }
      }),
  )
  return impact
}

async function record(options: RecordOptions): Promise<number> {
  if (!options.bundle) throw new Error('bundle path required but unset')
  const durationMs = parseDuration(options.duration)
  const rate = Number(options.sampleRate)
  if (!Number.isFinite(rate) || rate < 0 || rate > 1) {
    throw new Error(`--sample-rate must be a number from 0 to 1, got ${options.sampleRate}`)
  }
  const limit = Number(options.limit)
  if (!Number.isInteger(limit) || limit < 0)
    throw new Error(`--limit must be a whole number, got ${options.limit}`)
  const bundle = await candidateBytes(options.bundle)
  const url = new URL('/v0/impact', options.addr)
  url.searchParams.set('duration', `${durationMs}ms`)
  url.searchParams.set('rate', String(rate))
  url.searchParams.set('equals', String(options.equals ?? false))
  const dispatcher = await tlsAgent(options)
  const response = await request(url, {
    method: 'POST',
    body: bundle,
    headers: { 'content-type': 'application/gzip' },
    ...(dispatcher ? { dispatcher } : {}),
    // The server answers when the recording ends; allow it the duration and a margin.
    headersTimeout: durationMs + 30_000,
    bodyTimeout: durationMs + 30_000,
  })
  if (response.statusCode !== 200) {
    const text = await response.body.text()
    let message = text
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? text
    } catch {
      // Not OPA's error envelope: show the body as it came.
    }
    throw new Error(`unexpected HTTP status code: ${response.statusCode}: ${message.trim()}`)
  }
  const records: ImpactRecord[] = []
  let buffered = ''
  for await (const chunk of response.body) {
    buffered += chunk.toString()
    const lines = buffered.split('\n')
    buffered = lines.pop() ?? ''
    for (const line of lines) if (line.trim() !== '') records.push(parseLossless(line) as ImpactRecord)
  }
  if (buffered.trim() !== '') records.push(parseLossless(buffered) as ImpactRecord)
  const text = renderReport(buildReport(records, { group: options.group ?? false, limit }), options.format)
  if (options.output === '-') process.stdout.write(text)
  else await writeFile(options.output, text)
  return options.failAny && records.length > 0 ? 1 : 0
}

/** The candidate as bundle bytes: files are sent as they are, directories as a tarball. */
async function candidateBytes(path: string): Promise<Uint8Array> {
  const info = await stat(path)
  if (!info.isDirectory()) return readFile(path)
  return writeBundle(await readBundle({ dir: path }))
}

async function tlsAgent(options: RecordOptions): Promise<Agent | undefined> {
  const wanted =
    options.tlsCaCertFile || options.tlsCertFile || options.tlsPrivateKeyFile || options.tlsSkipVerification
  if (!wanted) return undefined
  return new Agent({
    connect: {
      ...(options.tlsCaCertFile ? { ca: await readFile(options.tlsCaCertFile) } : {}),
      ...(options.tlsCertFile ? { cert: await readFile(options.tlsCertFile) } : {}),
      ...(options.tlsPrivateKeyFile ? { key: await readFile(options.tlsPrivateKeyFile) } : {}),
      rejectUnauthorized: !options.tlsSkipVerification,
    },
  })
}
