# syntax=docker/dockerfile:1
# The lending service as a container: plain JavaScript built by tsc, production dependencies only,
# run as a non-root user. Guide: docs/deployment.md.
# --- build: every dependency, then tsc into dist/ ---
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the build runs below, once the sources are here
RUN npm ci --ignore-scripts
COPY . .
RUN npm run build

# --- runtime: production dependencies and the built output ---
FROM node:24-bookworm-slim AS runtime
# DEMO=false: a first start on an empty /data creates no demo business (docs/deployment.md)
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data \
    DEMO=false
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: no production dependency needs an install script, and `prepare` would build again without tsc
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY bin ./bin
COPY --from=build /app/dist ./dist
# The code stays owned by root (read-only to the service); only /data is the service's.
RUN mkdir -p /data && chown node:node /data
USER node
# The embedded database (DATA_DIR/pgdata) and the client files (DATA_DIR/files) unless DATABASE_URL/FILES_DIR say otherwise
VOLUME ["/data"]
# the API, and the Prometheus metrics (METRICS_PORT)
EXPOSE 3000 9464
# No curl in slim images: Node's fetch asks /readyz (200 once the database answers).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# --liftoff-only: on Node 24, V8 compiles the embedded database's WebAssembly again in the
# background a second after start, a transient peak near 900 MiB; its baseline compiler alone keeps
# the peak near 430 MiB (a 512 MiB container) for embedded queries about 30 % slower. It changes
# nothing with DATABASE_URL (no WebAssembly). docs/deployment.md, "Memory".
CMD ["node", "--liftoff-only", "bin/lending.js", "serve"]
