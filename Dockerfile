# syntax=docker/dockerfile:1
# One image for every component; the Kubernetes command picks the process (@svc/manifest
# bundles.ts):
#   auth, practices, vacancies, identity, webhooks:
#     node --import ./dist/<name>/instrument.js dist/<name>/main.js
#   the webhook dispatcher:
#     node --import ./dist/webhooks/instrument.js dist/webhooks/dispatcher-main.js
#   the migrations Job:
#     node dist/tools/migrate.js
# The production image holds the compiled bundles (`npm run build`: plain JavaScript, so no
# process loads Node's TypeScript stripper) and the files they read; the `dev` target adds the
# TypeScript sources, which Tilt's live update syncs and `node --watch` runs directly.

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

# The bundles (tools/build.ts). Scripts stay off: esbuild runs from its platform package, and
# nothing else installed here is executed.
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY --from=manifests /src/ ./
COPY .npmrc ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --ignore-scripts --no-audit --no-fund
COPY shared/ ./shared/
COPY services/ ./services/
COPY tools/ ./tools/
COPY packages/portal/ ./packages/portal/
RUN node tools/build.ts
# The idle heap release's malloc_trim addon (shared/runtime/native), compiled against this image's
# Node headers; the compiler stays in this stage.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/* \
 && npm_config_nodedir=/usr/local npm rebuild @svc/runtime \
 && test -f shared/runtime/build/Release/malloc_trim.node

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
# glibc allocator settings of every process (@svc/runtime RUNTIME_ENV says why; a test compares).
ENV MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072 MALLOC_TRIM_THRESHOLD_=131072
WORKDIR /app
# npm and corepack are not needed at run time; fewer binaries, fewer CVEs to patch.
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack
COPY --from=prod-deps /app/ ./
# Owned by root and not writable by the process user: the bundles, and the files they read where
# the sources sit (@svc/manifest RUNTIME_FILES; a test compares): the version, each service's
# migrations, the OpenAPI document, the route table the local gateway reads, the portal's page.
COPY package.json ./package.json
COPY --from=build /src/dist/ ./dist/
# The subscriber portal's page (Vite's output; the webhooks API serves it at /portal/).
COPY --from=build /src/packages/portal/dist/ ./packages/portal/dist/
COPY services/auth/drizzle/ ./services/auth/drizzle/
COPY services/practices/drizzle/ ./services/practices/drizzle/
COPY services/vacancies/drizzle/ ./services/vacancies/drizzle/
COPY services/identity/drizzle/ ./services/identity/drizzle/
COPY services/webhooks/drizzle/ ./services/webhooks/drizzle/
COPY shared/openapi/openapi.json ./shared/openapi/openapi.json
COPY shared/openapi/openapi.sandbox.json ./shared/openapi/openapi.sandbox.json
COPY charts/integration-service/routes.json ./charts/integration-service/routes.json
COPY --from=build /src/shared/runtime/build/Release/malloc_trim.node ./shared/runtime/build/Release/malloc_trim.node
# Numeric, so Kubernetes can verify runAsNonRoot; uid 1000 is the image's "node" user.
USER 1000:1000
EXPOSE 8080 9464
# The process writes nothing outside /tmp, so the root filesystem can be mounted read-only.
CMD ["node", "-e", "console.error('choose a process: node dist/<name>/main.js'); process.exit(64)"]

# Development image for Tilt: the same runtime plus the TypeScript sources (the chart's
# image.runSources), owned by the process user, because live update syncs edited files into the
# running container (node --watch restarts).
FROM runtime AS dev
COPY --chown=1000:1000 shared/ ./shared/
COPY --chown=1000:1000 services/ ./services/
COPY --chown=1000:1000 tools/ ./tools/

# The default target is the production image.
FROM runtime
