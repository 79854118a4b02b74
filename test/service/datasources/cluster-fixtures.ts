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
