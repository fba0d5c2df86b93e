// RFC 9728 protected-resource metadata: how an MCP client that got a 401 finds the platform's
// authorization server and the scope to ask for. Served at the path-aware location the 401
// challenge names (/.well-known/oauth-protected-resource/mcp) and at the root form.
import { getOAuthProtectedResourceMetadataUrl, type OAuthProtectedResourceMetadata } from '@modelcontextprotocol/server';
import { Router } from 'express';

export interface ProtectedResourceOptions {
  /** The MCP endpoint's public URL: the resource identifier tokens are issued for. */
  readonly resourceUrl: string;
  /** The platform's OAuth issuer. */
  readonly authorizationServer: string;
  readonly scopes: readonly string[];
}

export interface ProtectedResource {
  /** The metadata document's URL, as the 401 challenge's `resource_metadata` names it. */
  readonly metadataUrl: string;
  readonly routes: Router;
}

export function createProtectedResource(options: ProtectedResourceOptions): ProtectedResource {
  const resource = new URL(options.resourceUrl);
  const metadataUrl = getOAuthProtectedResourceMetadataUrl(resource);
  const document: OAuthProtectedResourceMetadata = Object.freeze({
    resource: options.resourceUrl,
    authorization_servers: [options.authorizationServer],
    scopes_supported: [...options.scopes],
    bearer_methods_supported: ['header'],
    resource_name: 'Device telemetry platform tools',
  });
  const body = JSON.stringify(document);
  const routes = Router();
  const paths = [...new Set([new URL(metadataUrl).pathname, '/.well-known/oauth-protected-resource'])];
  routes.get(paths, (_req, res) => {
    // Public and the same for everyone: browsers may read it from any page, caches may keep it.
    res.set({ 'content-type': 'application/json', 'access-control-allow-origin': '*', 'cache-control': 'public, max-age=3600' }).send(body);
  });
  return { metadataUrl, routes };
}
