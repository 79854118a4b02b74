# syntax=docker/dockerfile:1
# regent image: `docker run regent relay -c /etc/regent/relay.yaml`, `... service`, `... run -s`.

# --- build: all dependencies, type-check, bundle to dist/ -----------------------------------
FROM node:22-bookworm-slim AS build
WORKDIR /src
# better-sqlite3 builds from source when no prebuilt binary matches.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY core core
COPY compile compile
COPY plugins plugins
COPY relay relay
COPY agent agent
COPY store store
COPY service service
COPY cli cli
COPY console console
COPY scripts scripts
RUN npm run build && npm prune --omit=dev

# --- run: production dependencies and dist/ only, as a non-root user -------------------------
FROM node:22-bookworm-slim
# REGENT_DATA_DIR: every part keeps its state under the volume by default (service:
# /var/lib/regent/service, relay: /var/lib/regent/relay), the only path the image's user may write,
# so a read-only root filesystem works. REGENT_LISTEN_HOST: servers listen on every interface by
# default, so the EXPOSEd ports are reachable; a flag or the config file still wins (the
# Kubernetes sidecar keeps `relay.addr: 127.0.0.1:8282`). Outside the image both default to
# ./.regent and 127.0.0.1.
ENV NODE_ENV=production \
    REGENT_DATA_DIR=/var/lib/regent \
    REGENT_LISTEN_HOST=0.0.0.0
# git and ssh: systems and datasources built from git repositories drive Debian's git (docs/git.md).
RUN apt-get update && apt-get install -y --no-install-recommends git openssh-client ca-certificates \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules node_modules
COPY --from=build /src/dist dist
COPY bin bin
# The relay keeps its bundle cache and decision-log buffer here: an emptyDir by default,
# a PersistentVolumeClaim when relay.storage.persistent is true. 1000:1000 is the node image's
# `node` user; numeric, because the kubelet can only check `runAsNonRoot` against a number.
RUN mkdir -p /var/lib/regent && chown 1000:1000 /var/lib/regent && chmod 0700 /var/lib/regent
VOLUME /var/lib/regent
USER 1000:1000
# 8181: service (or `run -s`), 8282: relay.
EXPOSE 8181 8282
# Asks the server running in the container (service, relay or run -s) on its own port and
# health path; see bin/healthcheck.js. REGENT_HEALTH_URL overrides.
HEALTHCHECK --interval=15s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "/app/bin/healthcheck.js"]
ENTRYPOINT ["node", "/app/bin/regent.js"]
CMD ["--help"]
