/**
 * The server's TLS settings (`--tls-cert-file`, `--tls-private-key-file`, `--tls-ca-cert-file`,
 * `--min-tls-version`, `--tls-cipher-suites`) as Node `tls` options, and the certificate refresh of
 * `--tls-cert-refresh-period`: the files are re-read every period and, when their bytes changed,
 * the server's secure context is replaced (new connections get the new certificate, open ones keep
 * theirs), as OPA reloads them. A refresh that fails to load is logged and the old context kept.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import {
  createSecureContext,
  type SecureContextOptions,
  type TLSSocket,
  type Server as TlsServer,
} from 'node:tls'
import type { Logger } from 'pino'

/** What the flags say. */
export interface TlsSettings {
  certFile: string
  keyFile: string
  /** Client certificates are verified against it (required with `--authentication tls`). */
  caFile?: string
  minVersion: 'TLSv1.2' | 'TLSv1.3'
  /** OpenSSL cipher list (agent/cipher-suites.ts), or undefined for Node's defaults. */
  ciphers?: string
  /** `--authentication tls`: a verified client certificate is required, not only checked. */
  requireClientCert: boolean
  /** Re-read the files this often (0: never). */
  refreshMs: number
}

/** Reads the files into context options. @throws Error naming the file that does not load. */
export function secureContextOptions(settings: TlsSettings): SecureContextOptions {
  const read = (file: string, flag: string) => {
    try {
      return readFileSync(file)
    } catch (err) {
      throw new Error(`${flag} ${file}: ${(err as Error).message}`)
    }
  }
  const options: SecureContextOptions = {
    cert: read(settings.certFile, '--tls-cert-file'),
    key: read(settings.keyFile, '--tls-private-key-file'),
    minVersion: settings.minVersion,
    ...(settings.caFile ? { ca: read(settings.caFile, '--tls-ca-cert-file') } : {}),
    ...(settings.ciphers ? { ciphers: settings.ciphers } : {}),
  }
  try {
    // Fails here, with the reason, rather than at the first handshake.
    createSecureContext(options)
  } catch (err) {
    throw new Error(
      `TLS files do not load (${settings.certFile}, ${settings.keyFile}): ${(err as Error).message}`,
    )
  }
  return options
}

/** Server options: the context plus client-certificate policy (Go's RequireAndVerify / VerifyIfGiven). */
export function tlsServerOptions(settings: TlsSettings): SecureContextOptions & {
  requestCert: boolean
  rejectUnauthorized: boolean
} {
  return {
    ...secureContextOptions(settings),
    requestCert: settings.caFile !== undefined,
    rejectUnauthorized: settings.requireClientCert,
  }
}

/**
 * Go's VerifyClientCertIfGiven: a client that presents a certificate the CA did not sign is cut
 * off; one that presents none goes on (without an identity).
 */
export function refuseUnverifiedPeers(server: TlsServer): void {
  server.on('secureConnection', (socket: TLSSocket) => {
    if (socket.authorized) return
    const peer = socket.getPeerCertificate()
    if (peer && Object.keys(peer).length > 0) socket.destroy()
  })
}

/** Starts the refresh loop; returns its stop. */
export function refreshCertificates(server: TlsServer, settings: TlsSettings, logger: Logger): () => void {
  if (settings.refreshMs <= 0) return () => {}
  const fingerprint = () => {
    const hash = createHash('sha256')
    for (const file of [settings.certFile, settings.keyFile, settings.caFile]) {
      if (file) hash.update(readFileSync(file))
    }
    return hash.digest('hex')
  }
  let last = fingerprint()
  const timer = setInterval(() => {
    try {
      const now = fingerprint()
      if (now === last) return
      server.setSecureContext(secureContextOptions(settings))
      last = now
      logger.info({ cert_file: settings.certFile }, 'TLS certificate reloaded')
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'TLS certificate refresh failed; keeping the old one')
    }
  }, settings.refreshMs)
  timer.unref()
  return () => clearInterval(timer)
}
