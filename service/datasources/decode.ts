/**
 * Decoding what a source answered: JSON (numbers kept exactly, as /v1/data does), YAML (through
 * core/yaml.ts with its node limit) and XML (fast-xml-parser, attributes kept as `@_name`, every value a string, entity
 * declarations refused so a document cannot expand itself). Which one follows the media type,
 * then the file extension, then JSON. Errors name the format and, where known, line and column.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser'
import { HttpError } from '../../core/http/index.js'
import { isJsonObject, parseJsonDocument, parseYamlDocument } from '../json-document.js'
import { RunError } from './types.js'

/** The formats a datasource reads. */
export type ContentFormat = 'json' | 'yaml' | 'xml'

const YAML_TYPES = new Set(['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'])
const XML_TYPES = new Set(['application/xml', 'text/xml'])

/**
 * The format of a body from its media type (`Content-Type`, parameters ignored) or, failing
 * that, the extension of `name` (a URL path or file name); JSON otherwise.
 */
export function formatOf(contentType: string | undefined, name = ''): ContentFormat {
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase()
  if (YAML_TYPES.has(media) || media.endsWith('+yaml')) return 'yaml'
  if (XML_TYPES.has(media) || media.endsWith('+xml')) return 'xml'
  if (media === 'application/json' || media.endsWith('+json')) return 'json'
  const lower = name.toLowerCase()
  if (lower.endsWith('.yaml') || lower.endsWith('.yml')) return 'yaml'
  if (lower.endsWith('.xml')) return 'xml'
  return 'json'
}

/** A DOCTYPE that declares entities (the way to an entity-expansion bomb or an external file). */
const ENTITY_DECLARATION = /<!DOCTYPE[^>[]*\[[\s\S]*<!ENTITY/i

const xmlParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  processEntities: false,
  htmlEntities: false,
  // NOTE(datasources): text stays text (`01234` is a zip code, not 1234), attributes and elements alike.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
})

/**
 * The document in `bytes` read as `format`.
 * @throws RunError naming the format, `where` (the URL or file) and the position of the error.
 */
export function decodeContent(
  bytes: Uint8Array,
  format: ContentFormat,
  where: string,
  maxYamlNodes: number,
): unknown {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new RunError(`decode error: ${where} is not UTF-8 text`)
  }
  try {
    if (format === 'json') return parseJsonDocument(text)
    if (format === 'yaml') return parseYamlDocument(text, maxYamlNodes)
    return decodeXml(text)
  } catch (err) {
    if (err instanceof RunError)
      throw new RunError(`decode error: ${format.toUpperCase()} of ${where}: ${err.message}`)
    // parseJsonDocument and parseYamlDocument answer HTTP errors meant for request bodies.
    const reason =
      err instanceof HttpError ? err.message.replace(/^malformed (JSON|YAML) body ?/, '') : String(err)
    throw new RunError(
      `decode error: ${format.toUpperCase()} of ${where}: ${reason.replace(/^:\s*/, '') || 'malformed'}`,
    )
  }
}

function decodeXml(text: string): unknown {
  if (ENTITY_DECLARATION.test(text)) throw new RunError('entity declarations are refused')
  const valid = XMLValidator.validate(text)
  if (valid !== true) {
    const { msg, line, col } = valid.err
    throw new RunError(`${msg} at line ${line}, column ${col}`)
  }
  return xmlParser.parse(text)
}

/** How many items a document holds: an array's length, an object's keys, else 1. */
export function itemCount(content: unknown): number {
  if (Array.isArray(content)) return content.length
  if (isJsonObject(content)) return Object.keys(content).length
  return 1
}
