// The webhook service's release, one number for everyone who sees it: the User-Agent of its
// deliveries names it to receivers, and the OpenAPI document states it as info.version to API
// clients. It is the package's version (webhook-api/package.json), so a release bumps one place.
import packageJson from '../../package.json' with { type: 'json' };

export const webhookServiceRelease: string = packageJson.version;
