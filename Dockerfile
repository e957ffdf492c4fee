# The webdata server image: the API (`webdata-server`) and the worker (`webdata-worker`) from this repository, with
# Debian's Chromium for the browser engine. docs/deploy.md shows it in a compose file with Postgres and Redis.
FROM node:20-bookworm-slim AS build
WORKDIR /app
# The SQLite driver compiles from source where no prebuilt binary fits.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY . .
RUN npm ci && npx tsc -b && npm prune --omit=dev

FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends chromium fonts-liberation tini \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app /app
# The default store, for a single container; a deployment of many sets WEBDATA_STORE to Postgres or Redis.
RUN mkdir /data && chown node:node /data
VOLUME /data
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3002 CHROMIUM_PATH=/usr/bin/chromium WEBDATA_STORE=sqlite:/data/webdata.db
USER node
EXPOSE 3002
ENTRYPOINT ["/usr/bin/tini", "--"]
# The heap `npm start` gives the server: a 64 MB young generation (~23 % less CPU per scrape under load, ~100 MB more
# RSS) and a 256 MB floor under the old generation's limit (~11 % less, ~50 MB more; docs/configuration.md, "Heap of a
# server").
CMD ["node", "--max-semi-space-size=64", "--initial-old-space-size=256", "packages/server/dist/main.js"]
