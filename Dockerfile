# syntax=docker/dockerfile:1
#
# reviewwatch: a two-stage image. The builder compiles better-sqlite3 (when no prebuilt binary can be
# downloaded) and the TypeScript, then prunes dev dependencies; the runtime stage gets only what
# `reviewwatch start` needs, runs as the unprivileged `node` user and keeps its SQLite file in a volume.
#
#   docker build -t reviewwatch .
#   docker run --init -d --name reviewwatch --stop-timeout 40 \
#     -e REDIS_URL=redis://redis.example:6379 --env-file .env \
#     -v reviewwatch-data:/app/data -v "$PWD/config/reviewwatch.yaml:/app/config/reviewwatch.yaml:ro" \
#     -p 127.0.0.1:9464:9464 reviewwatch
#
# docs/deployment.md explains the environment, the volume and upgrades; docs/operations.md health checks
# and backups.

# A Node.js LTS: 22, 24 and 26 build and run this app (Node 22's support ends in April 2027).
ARG NODE_VERSION=22

FROM node:${NODE_VERSION}-bookworm-slim AS builder
# node-gyp's toolchain: better-sqlite3 compiles from source when its prebuilt binary is unavailable.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# Dependencies first, so this layer is reused while only the source changes. Optional dependencies stay:
# esbuild and msgpackr get their platform binaries through them.
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build \
  && chmod +x dist/cli/main.js \
  && npm prune --omit=dev --no-audit --no-fund
# What prune keeps but nothing loads at run time: typescript (23 MB) stays as an optional peer of valibot
# (under @bull-board/api), and better-sqlite3 keeps its SQLite sources and compiler output; it loads
# only build/Release/better_sqlite3.node.
RUN rm -rf node_modules/typescript \
  && cd node_modules/better-sqlite3 \
  && rm -rf deps src build/deps build/Release/obj build/Release/obj.target build/Release/.deps \
    build/Release/sqlite3.a build/Release/test_extension.node

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
  DATABASE_PATH=/app/data/reviewwatch.db \
  REVIEWWATCH_CONFIG=/app/config/reviewwatch.yaml \
  REVIEWWATCH_HTTP_HOST=0.0.0.0 \
  REVIEWWATCH_HTTP_PORT=9464 \
  LOG_FORMAT=json
WORKDIR /app
# The application is owned by root and read-only to the app; only /app/data is the app's to write.
COPY --from=builder /app/package.json ./package.json
COPY --from=builder /app/node_modules ./node_modules
COPY --from=builder /app/dist ./dist
COPY drizzle ./drizzle
COPY config/reviewwatch.example.yaml ./config/reviewwatch.example.yaml
# npm is not needed at run time; `reviewwatch` on the PATH serves `docker exec … reviewwatch status`.
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
    /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
  && ln -s /app/dist/cli/main.js /usr/local/bin/reviewwatch \
  && mkdir -p /app/data \
  && chown node:node /app/data
# The SQLite database (with its -wal and -shm files). A new named volume takes this directory's owner.
VOLUME ["/app/data"]
USER node
# The ops server of `reviewwatch start`: /healthz, /readyz, /metrics and /admin/queues (those two with credentials).
EXPOSE 9464
# No curl in slim images: Node's own fetch. Liveness only; /readyz also needs Redis and SQLite.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.REVIEWWATCH_HTTP_PORT||9464)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Node runs as PID 1 and handles SIGTERM itself: a stop lets jobs in flight finish (up to 30 s), so give
# it 40 s (`docker stop -t 40`, compose's stop_grace_period). `--init` (compose: init: true) adds tini.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["start"]
