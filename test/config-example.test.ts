/**
 * config.example.yaml must stay true: it validates for both processes, and every key that has a
 * default in a schema appears in it.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { serviceConfigFileSchema } from '../cli/commands/service.js'
import { parseConfig } from '../core/config.js'
import { decisionLogsSectionSchema } from '../plugins/logs/config.js'
import { relayConfigSchema, relaySectionSchema } from '../relay/index.js'
import { serviceSectionSchema } from '../service/index.js'

const text = readFileSync(new URL('../config.example.yaml', import.meta.url), 'utf8')
const written = parse(text) as Record<string, unknown>

/** Dotted paths of every leaf value in a plain object tree (arrays count as leaves). */
function leafPaths(node: unknown, prefix = ''): string[] {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return [prefix]
  const entries = Object.entries(node)
  if (entries.length === 0) return [prefix]
  return entries.flatMap(([key, value]) => leafPaths(value, prefix ? `${prefix}.${key}` : key))
}

function has(tree: unknown, path: string): boolean {
  let node = tree
  for (const key of path.split('.')) {
    if (node === null || typeof node !== 'object' || !(key in node)) return false
    node = (node as Record<string, unknown>)[key]
  }
  return true
}

describe('config.example.yaml', () => {
  it('is a valid config for regent service and regent relay', () => {
    const service = parseConfig(text, serviceConfigFileSchema, { env: {} })
    expect(service.service.database.pool_size).toBe(10)
    const relay = parseConfig(text, relayConfigSchema, { env: {} })
    expect(relay.relay.addr).toBe('127.0.0.1:8282')
    expect(Object.keys(relay.services)).toEqual(['regent'])
    expect(decisionLogsSectionSchema.parse(relay.relay.decision_logs).buffer.sync).toBe('full')
  })

  it.each([
    ['service', serviceSectionSchema],
    ['relay', relaySectionSchema],
    ['relay.decision_logs', decisionLogsSectionSchema],
  ] as const)('documents every defaulted key of %s with its default', (section, schema) => {
    const defaults = schema.parse({}) as Record<string, unknown>
    for (const path of leafPaths(defaults)) {
      const full = `${section}.${path}`
      expect(has(written, full), `${full} is missing from config.example.yaml`).toBe(true)
      const value = full
        .split('.')
        .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], written)
      // Values given through ${VAR} or deliberately different from the default are not in sections.
      expect(value, `${full} should show its default`).toEqual(
        path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], defaults),
      )
    }
  })
})
