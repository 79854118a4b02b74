/**
 * Every datasource category in one ordered list: the validator, the scheduler, the routes and
 * docs/datasources.md read it. Adding a category is one file and one line here.
 */
import { bundleObjectStoreCategory, store2BundleCategory } from './bundle-object-store.js'
import { clusterResourcesCategory } from './cluster-resources.js'
import { cloudEcrCategory } from './ecr.js'
import { gitBlameCategory } from './git-blame.js'
import { gitContentCategory } from './git-content.js'
import { gitRegoCategory } from './git-rego.js'
import { httpCategory } from './http.js'
import { idpCategory } from './idp.js'
import { ldapCategory } from './ldap.js'
import { cloudObjectStoreCategory, store2ContentCategory } from './object-store.js'
import { policyLibraryCategory } from './policy-library.js'
import { restCategory } from './rest.js'
import { streamCategory } from './stream.js'
import type { DatasourceCategory } from './types.js'

export const DATASOURCE_CATEGORIES: readonly DatasourceCategory[] = [
  httpCategory,
  restCategory,
  gitContentCategory,
  gitBlameCategory,
  gitRegoCategory,
  ldapCategory,
  cloudObjectStoreCategory,
  store2ContentCategory,
  bundleObjectStoreCategory,
  store2BundleCategory,
  idpCategory,
  cloudEcrCategory,
  streamCategory,
  clusterResourcesCategory,
  policyLibraryCategory,
]

const byName = new Map(DATASOURCE_CATEGORIES.map((c) => [c.category, c]))

/** The category called `name`, if any. */
export function categoryNamed(name: string): DatasourceCategory | undefined {
  return byName.get(name)
}
