# syntax=docker/dockerfile:1
# One image for every component; the Kubernetes command picks the process:
#   node services/<name>/src/main.ts            auth, practices, vacancies, identity, webhooks
#   node services/webhooks/src/dispatcher-main.ts   the webhook dispatcher
#   node tools/migrate.ts                       the migrations Job
# Node 24 runs the TypeScript sources directly (type stripping): there is no build output.

# Debian slim rather than Alpine: argon2 loads a prebuilt glibc binary, and live update needs tar.
ARG NODE_IMAGE=node:24-slim

# Only the package manifests, so the dependency layer below is rebuilt when a manifest changes,
# not when a source file does (COPY --from is cached by the content it copies).
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN find . -type f ! -name package.json ! -name package-lock.json -delete \
 && find . -type d -empty -delete

# Production dependencies of every workspace; the root's devDependencies (test and lint tools,
# the node binary package) stay out. Workspace links (node_modules/@svc/*) point at the source
# folders copied in the next stage.
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY --from=manifests /src/ ./
COPY .npmrc ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --omit=dev --workspaces --include-workspace-root=false --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
# glibc allocator settings of every process (tools/stack.ts RUNTIME_ENV says why; a test compares).
ENV MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072 MALLOC_TRIM_THRESHOLD_=131072
WORKDIR /app
# npm and corepack are not needed at run time; fewer binaries, fewer CVEs to patch.
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack
COPY --from=prod-deps /app/ ./
# Sources owned by root and not writable by the process user.
COPY package.json ./
COPY shared/ ./shared/
COPY services/ ./services/
COPY tools/ ./tools/
# The route table the local gateway reads (the chart's Ingress reads the same file).
COPY charts/integration-service/routes.json ./charts/integration-service/routes.json
# Numeric, so Kubernetes can verify runAsNonRoot; uid 1000 is the image's "node" user.
USER 1000:1000
EXPOSE 8080 9464
# The process writes nothing outside /tmp, so the root filesystem can be mounted read-only.
CMD ["node", "-e", "console.error('choose a process: node services/<name>/src/main.ts'); process.exit(64)"]

# Development image for Tilt: the same runtime, with sources the process user may overwrite,
# because live update syncs edited files into the running container (node --watch restarts).
FROM runtime AS dev
USER root
RUN chown -R 1000:1000 /app/shared /app/services /app/tools
USER 1000:1000

# The default target is the production image.
FROM runtime
