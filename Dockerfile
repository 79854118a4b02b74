# syntax=docker/dockerfile:1
# regent image: `docker run regent relay -c /etc/regent/relay.yaml`, `... service`, `... run -s`.

# --- build: all dependencies, compile TypeScript to dist/ -----------------------------------
FROM node:22-bookworm-slim AS build
WORKDIR /src
# better-sqlite3 builds from source when no prebuilt binary matches.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY core core
COPY compile compile
COPY relay relay
COPY store store
COPY service service
COPY cli cli
RUN npm run build && npm prune --omit=dev

# --- run: production dependencies and dist/ only, as a non-root user -------------------------
FROM node:22-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules node_modules
COPY --from=build /src/dist dist
COPY bin bin
# The relay keeps its bundle cache and decision-log buffer here: an emptyDir by default,
# a PersistentVolumeClaim when relay.storage.persistent is true.
RUN mkdir -p /var/lib/regent && chown node:node /var/lib/regent
VOLUME /var/lib/regent
USER node
# 8181: service (or `run -s`), 8282: relay.
EXPOSE 8181 8282
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.REGENT_HEALTH_PORT||8282)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "/app/bin/regent.js"]
CMD ["--help"]
