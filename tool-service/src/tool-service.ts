// createToolService: the webhook-management tool service, built on the SDK's tool app. The webhook
// API is declared part of the platform API, the only other place the delegated token may go.
import type { HttpClient, Logger, PlatformAppIdentity } from '@platform/tool-sdk';
import { createToolApp, type ToolApp, type ToolAppOptions } from '@platform/tool-sdk/tools';
import { deliveryTools } from './deliveries.tools.ts';
import { deviceLinkTools } from './device-links.tools.ts';
import { platformTools } from './platform.tools.ts';
import { scopeTools } from './scopes.tools.ts';
import type { ToolServiceSettings } from './settings.ts';
import { webhookApiPart } from './webhook-api-client.ts';
import { webhookTools } from './webhooks.tools.ts';
import { webhookEndpointTools } from './webhook-endpoint.tools.ts';

export interface ToolServiceOptions {
  readonly settings: ToolServiceSettings;
  /** The app's identity, platformAppIdentity(settings): registers the service and answers app_info. */
  readonly identity: PlatformAppIdentity;
  readonly logger: Logger;
  readonly httpClient?: HttpClient;
  /** Registry retry and call timing; the defaults suit production. */
  readonly registration?: ToolAppOptions['registration'];
  /** Prometheus metrics of the calls, on their own port when set. */
  readonly metrics?: ToolAppOptions['metrics'];
}

export function createToolService(options: ToolServiceOptions): ToolApp {
  const { settings, identity, logger } = options;
  const app = createToolApp({
    settings,
    identity,
    logger,
    platformApiBaseUrls: { [webhookApiPart]: settings.webhookApiBaseUrl },
    ...(options.httpClient && { httpClient: options.httpClient }),
    ...(options.registration && { registration: options.registration }),
    ...(options.metrics && { metrics: options.metrics }),
  });
  app.registerTools([...webhookTools, ...deviceLinkTools, ...scopeTools, ...deliveryTools, ...platformTools(identity), ...webhookEndpointTools]);
  return app;
}
