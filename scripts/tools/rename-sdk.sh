#!/usr/bin/env bash
# The SDK's package named for what it is: @platform/shared -> @platform/tool-sdk in every tracked
# file (import specifiers, manifests, docs, configuration, the tarball's name platform-shared-*),
# the folder staying shared/; then the formatting, the lock file and the API reports follow. Purely mechanical and
# idempotent: run it again after merging a branch that still says @platform/shared.
set -euo pipefail
cd "$(dirname "$0")/../.."

git ls-files -z \
  | grep -zv -e '^package-lock\.json$' -e '^shared/CHANGELOG\.md$' -e '^scripts/tools/rename-sdk\.sh$' \
  | { xargs -0 grep -lZ -e '@platform/shared' -e 'platform-shared-' || true; } \
  | xargs -0 -r sed -i -e 's#@platform/shared#@platform/tool-sdk#g' -e 's#platform-shared-#platform-tool-sdk-#g'
# A longer name can push an import past the line width.
npx prettier --write --log-level warn .
npm install --no-audit --no-fund
npm run api:update
