/**
 * A minimal ECR API (JSON 1.1: `POST /` with `X-Amz-Target`) on 127.0.0.1 for end-to-end tests:
 * DescribeRepositories and DescribeImages in one page each, answering only requests that carry
 * a SigV4 Authorization header for `ecr` in `region` with `accessKeyId`. Signature recomputation,
 * pagination and refusals are proven in test/service/datasources/ecr.test.ts.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

const TARGET = 'AmazonEC2ContainerRegistry_V20150921'

export interface FakeEcrApi {
  url: string
  close(): Promise<void>
}

/** Starts the server with `images` per repository name (tags of each image). */
export async function startFakeEcrApi(options: {
  region: string
  accessKeyId: string
  registryId: string
  images: Record<string, string[]>
}): Promise<FakeEcrApi> {
  const { region, accessKeyId, registryId, images } = options
  const credential = new RegExp(
    `^AWS4-HMAC-SHA256 Credential=${accessKeyId}/\\d{8}/${region}/ecr/aws4_request, `,
  )
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' })
        res.end(JSON.stringify(body))
      }
      if (!credential.test(String(req.headers.authorization ?? '')))
        return send(400, { __type: 'UnrecognizedClientException', message: 'The security token is invalid' })
      const action = String(req.headers['x-amz-target'] ?? '').replace(`${TARGET}.`, '')
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as { repositoryName?: string }
      if (action === 'DescribeRepositories')
        return send(200, {
          repositories: Object.keys(images).map((name) => ({
            registryId,
            repositoryName: name,
            repositoryUri: `${registryId}.dkr.ecr.${region}.amazonaws.com/${name}`,
          })),
        })
      if (action === 'DescribeImages') {
        const tags = images[body.repositoryName ?? '']
        if (!tags) return send(400, { __type: 'RepositoryNotFoundException', message: 'no such repository' })
        return send(200, {
          imageDetails: tags.map((tag, i) => ({
            registryId,
            repositoryName: body.repositoryName,
            imageDigest: `sha256:${String(i).padStart(64, '0')}`,
            imageTags: [tag],
          })),
        })
      }
      send(400, { __type: 'UnknownOperationException' })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
