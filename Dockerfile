# One image for every service of the stack; docker-compose.yml chooses each container's entry point.
# Node 24 runs the TypeScript sources directly, so there is no build step: the sources and the
# runtime dependencies are the image (the SDK's dist/ is built only for packing it).
#
# NODE_IMAGE: the Node 24 base (node:24-slim from Docker Hub for everyone; the compose test, which
# has no registry, builds one from Debian's packages). INSTALL_DEPENDENCIES=false: the build
# context already holds the production node_modules (the compose test installs them on the host,
# where the npm registry is reachable) and npm ci is skipped; the default installs them here.
ARG NODE_IMAGE=node:24-slim
FROM ${NODE_IMAGE}
ARG INSTALL_DEPENDENCIES=true
WORKDIR /app

# The manifests first, so the dependency layer is rebuilt only when they change. npm ci needs the
# manifest of every workspace the lock file names.
COPY package.json package-lock.json ./
COPY devtools/package.json devtools/
COPY postgres/package.json postgres/
COPY shared/package.json shared/
COPY proto/package.json proto/
COPY dev-platform/package.json dev-platform/
COPY mcp-server/package.json mcp-server/
COPY tool-service/package.json tool-service/
COPY webhook-api/package.json webhook-api/
COPY scripts/package.json scripts/
# The services import only their workspaces' dependencies; the dev dependencies (tests, lint, the
# Node binary package) stay out. No install scripts: no runtime dependency needs one.
RUN if [ "$INSTALL_DEPENDENCIES" = true ]; then npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force; fi

COPY . .
# Where docker-compose.yml's certificates volume is mounted: a new volume takes this folder's owner,
# so the init service (running as node) can write into it.
RUN mkdir -m 0700 /certificates && chown node:node /certificates
ENV NODE_ENV=production
# The SDK and proto packages resolve to their TypeScript sources (the repository's own export
# condition), as under npm run; their dist/ is for consumers of the packed packages only.
ENV NODE_OPTIONS=--conditions=@platform/source
USER node
CMD ["node", "dev-platform/src/main.ts"]
