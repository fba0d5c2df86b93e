// Who may publish tools at this gateway: the platform decides (an app it marks as a tool publisher,
// as GET /api/apps/me says), and the operator may narrow that to a list of app keys. The gateway
// never guesses from a service's name or address. The app's key must also be able to prefix its
// tools' names (exposed-names.ts).
import type { AppCaller } from './app-token-check.ts';
import { prefixableAppKey } from './exposed-names.ts';
import { RegistryError } from './registry-errors.ts';

/** Throws PERMISSION_DENIED, saying why, unless `caller` may register tool services here. */
export type PublishingPolicy = (caller: AppCaller) => void;

/** `allowedApps`: the operator's list of app keys (REGISTRY_ALLOWED_APPS); undefined lets every publisher in. */
export function createPublishingPolicy(allowedApps?: readonly string[]): PublishingPolicy {
  const allowed = allowedApps === undefined ? undefined : new Set(allowedApps);
  return (caller) => {
    if (!caller.toolPublisher) {
      throw new RegistryError(
        'NOT_A_TOOL_PUBLISHER',
        `The platform does not mark the app ${caller.appKey} (client ${caller.clientId}) as a tool publisher, so it may not register tool services; ` +
          'a platform administrator decides which apps publish tools.',
      );
    }
    if (allowed && !allowed.has(caller.appKey)) {
      throw new RegistryError(
        'APP_NOT_ALLOWED',
        `This gateway's operator lets only some tool publishers register here (REGISTRY_ALLOWED_APPS), and the app ${caller.appKey} is not one of them.`,
      );
    }
    if (!prefixableAppKey.test(caller.appKey)) {
      throw new RegistryError(
        'APP_KEY_NOT_PREFIXABLE',
        `The app key ${JSON.stringify(caller.appKey.slice(0, 80))} cannot prefix tool names (1 to 32 lower-case letters, digits and dashes), so the gateway cannot name its tools.`,
      );
    }
  };
}
