/**
 * Payloads in the shapes a Kubernetes API server answers (captured from a v1.29 cluster, trimmed
 * to a few fields each): discovery documents and PodList, NamespaceList, SecretList, IngressList
 * and IngressClassList items. Items carry no kind/apiVersion, as in real lists.
 */

export const CORE_RESOURCES = {
  kind: 'APIResourceList',
  groupVersion: 'v1',
  resources: [
    { name: 'bindings', singularName: 'binding', namespaced: true, kind: 'Binding', verbs: ['create'] },
    {
      name: 'configmaps',
      singularName: 'configmap',
      namespaced: true,
      kind: 'ConfigMap',
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['cm'],
    },
    {
      name: 'events',
      singularName: 'event',
      namespaced: true,
      kind: 'Event',
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    },
    {
      name: 'namespaces',
      singularName: 'namespace',
      namespaced: false,
      kind: 'Namespace',
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['ns'],
    },
    {
      name: 'pods',
      singularName: 'pod',
      namespaced: true,
      kind: 'Pod',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['po'],
      categories: ['all'],
    },
    {
      name: 'pods/status',
      singularName: '',
      namespaced: true,
      kind: 'Pod',
      verbs: ['get', 'patch', 'update'],
    },
    {
      name: 'secrets',
      singularName: 'secret',
      namespaced: true,
      kind: 'Secret',
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    },
  ],
}

export const API_GROUPS = {
  kind: 'APIGroupList',
  apiVersion: 'v1',
  groups: [
    {
      name: 'networking.k8s.io',
      versions: [{ groupVersion: 'networking.k8s.io/v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'networking.k8s.io/v1', version: 'v1' },
    },
    {
      name: 'metrics.k8s.io',
      versions: [{ groupVersion: 'metrics.k8s.io/v1beta1', version: 'v1beta1' }],
      preferredVersion: { groupVersion: 'metrics.k8s.io/v1beta1', version: 'v1beta1' },
    },
  ],
}

export const NETWORKING_RESOURCES = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: 'networking.k8s.io/v1',
  resources: [
    {
      name: 'ingressclasses',
      singularName: 'ingressclass',
      namespaced: false,
      kind: 'IngressClass',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    },
    {
      name: 'ingresses',
      singularName: 'ingress',
      namespaced: true,
      kind: 'Ingress',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['ing'],
    },
    {
      name: 'ingresses/status',
      singularName: '',
      namespaced: true,
      kind: 'Ingress',
      verbs: ['get', 'patch', 'update'],
    },
  ],
}

const meta = (name: string, namespace: string | undefined, extra: Record<string, unknown> = {}) => ({
  name,
  ...(namespace !== undefined ? { namespace } : {}),
  uid: `0b6c${name.length}e2-6d5e-4a7f-9c1b-${name.padEnd(12, '0').slice(0, 12)}`,
  resourceVersion: '48213',
  creationTimestamp: '2024-03-02T10:15:00Z',
  ...extra,
})

export function pod(name: string, namespace: string, phase: string) {
  return {
    metadata: meta(name, namespace, {
      labels: { app: name.split('-')[0] },
      annotations: {
        'kubectl.kubernetes.io/last-applied-configuration': '{"apiVersion":"v1","kind":"Pod"}\n',
        'team.example.com/owner': 'payments',
      },
    }),
    spec: {
      containers: [
        {
          name: 'app',
          image: 'registry.example.com/app:1.4.2',
          env: [{ name: 'DB_PASSWORD', value: 'hunter2' }],
          livenessProbe: { httpGet: { path: '/healthz', port: 8080 } },
        },
      ],
      restartPolicy: 'Always',
      serviceAccountName: 'default',
      nodeName: 'node-1',
    },
    status: { phase, podIP: '10.244.0.12', qosClass: 'BestEffort' },
  }
}

export const NAMESPACES = ['default', 'payments', 'kube-system'].map((name) => ({
  metadata: meta(name, undefined, { labels: { 'kubernetes.io/metadata.name': name } }),
  spec: { finalizers: ['kubernetes'] },
  status: { phase: 'Active' },
}))

export const SECRETS = [
  {
    metadata: meta('db', 'payments'),
    type: 'Opaque',
    data: { password: 'aHVudGVyMg==' },
  },
]

export const INGRESSES = [
  {
    metadata: meta('shop', 'payments'),
    spec: {
      ingressClassName: 'nginx',
      rules: [
        {
          host: 'shop.example.com',
          http: {
            paths: [
              { path: '/', pathType: 'Prefix', backend: { service: { name: 'shop', port: { number: 80 } } } },
            ],
          },
        },
      ],
    },
    status: { loadBalancer: { ingress: [{ ip: '203.0.113.7' }] } },
  },
]

export const INGRESS_CLASSES = [
  { metadata: meta('nginx', undefined), spec: { controller: 'k8s.io/ingress-nginx' } },
]

/** A `Status` object as the API server answers errors. */
export function statusBody(code: number, reason: string, message: string) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code }
}

/** `/api` of a server without aggregated discovery. */
export const API_VERSIONS = {
  kind: 'APIVersions',
  versions: ['v1'],
  serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '172.18.0.2:6443' }],
}

type LegacyResource = (typeof CORE_RESOURCES.resources)[number]

/** A group in the shape of aggregated discovery (apidiscovery.k8s.io/v2), from its legacy list. */
function discoveredGroup(group: string, version: string, resources: LegacyResource[], freshness = 'Current') {
  const top = resources.filter((r) => !r.name.includes('/'))
  return {
    metadata: group === '' ? { creationTimestamp: null } : { name: group, creationTimestamp: null },
    versions: [
      {
        version,
        resources: top.map((r) => ({
          resource: r.name,
          responseKind: { group, version, kind: r.kind },
          scope: r.namespaced ? 'Namespaced' : 'Cluster',
          singularResource: r.singularName,
          verbs: r.verbs,
          ...(resources.some((s) => s.name === `${r.name}/status`)
            ? {
                subresources: [
                  {
                    subresource: 'status',
                    responseKind: { group, version, kind: r.kind },
                    verbs: ['get', 'patch', 'update'],
                  },
                ],
              }
            : {}),
        })),
        freshness,
      },
    ],
  }
}

/** `/api` with aggregated discovery. */
export const AGGREGATED_CORE = {
  kind: 'APIGroupDiscoveryList',
  apiVersion: 'apidiscovery.k8s.io/v2',
  metadata: {},
  items: [discoveredGroup('', 'v1', CORE_RESOURCES.resources)],
}

/** `/apis` with aggregated discovery: the metrics API down, so marked stale. */
export const AGGREGATED_GROUPS = {
  kind: 'APIGroupDiscoveryList',
  apiVersion: 'apidiscovery.k8s.io/v2',
  metadata: {},
  items: [
    discoveredGroup('networking.k8s.io', 'v1', NETWORKING_RESOURCES.resources as LegacyResource[]),
    discoveredGroup(
      'metrics.k8s.io',
      'v1beta1',
      [
        {
          name: 'pods',
          singularName: 'podmetrics',
          namespaced: true,
          kind: 'PodMetrics',
          verbs: ['get', 'list'],
        },
      ] as LegacyResource[],
      'Stale',
    ),
  ],
}
