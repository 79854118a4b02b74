/**
 * Category `rest`: nothing is fetched; clients push the data with `POST /v1/datasources/{id}`
 * (a JSON body up to the service's body limit). Only `category`, `description`, `enabled` and
 * `content_type` are configured (the spec gives it no Common `on_premises`, no Poller).
 */
import { z } from 'zod'
import { defineCategory } from './types.js'

const schema = z.strictObject({
  category: z.literal('rest'),
  description: z.string({ error: 'expected a string' }).optional(),
  enabled: z.boolean({ error: 'expected true or false' }).default(true),
  content_type: z
    .string({ error: 'expected a media type' })
    .regex(/^application\/([a-z0-9.+-]+\+)?json$/i, {
      error: 'expected application/json (the only type a rest datasource takes)',
    })
    .default('application/json'),
})

/** The `rest` category. */
export const restCategory = defineCategory({ category: 'rest', schema, mode: 'push' })
