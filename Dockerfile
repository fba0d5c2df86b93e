# One image for every service of the stack; docker-compose.yml chooses each container's entry point.
# Node 24 runs the TypeScript sources directly, so there is no build step: the sources and the
# runtime dependencies are the image.
FROM node:24-slim
WORKDIR /app

# The manifests first, so the dependency layer is rebuilt only when they change. npm ci needs the
# manifest of every workspace the lock file names.
COPY package.json package-lock.json ./
COPY devtools/package.json devtools/
COPY shared/package.json shared/
COPY proto/package.json proto/
COPY dev-platform/package.json dev-platform/
COPY mcp-server/package.json mcp-server/
COPY tool-service/package.json tool-service/
COPY webhook-api/package.json webhook-api/
COPY scripts/package.json scripts/
# The services import only their workspaces' dependencies; the dev dependencies (tests, lint, the
# Node binary package) stay out. No install scripts: no runtime dependency needs one.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

COPY . .
ENV NODE_ENV=production
USER node
CMD ["node", "dev-platform/src/main.ts"]
