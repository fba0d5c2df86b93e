// Whether one more registration fits beside the live ones: how many one app and all apps may hold,
// and how many bytes of tools (catalog-limits.ts). A registration that replaces the same service's
// own takes no new place, and its bytes are set aside.
import { RegistryError } from './registry-errors.ts';
import type { CatalogLimits } from './catalog-limits.ts';

/** What a live registration occupies. */
export interface Occupant {
  readonly appClientId: string;
  readonly bytes: number;
}

export interface Entrant extends Occupant {
  /** The live registration of the same service it replaces, if any. */
  readonly replacing: Occupant | undefined;
}

export interface RoomRules {
  readonly maxRegistrations: number;
  readonly maxRegistrationsPerApp: number;
  readonly limits: CatalogLimits;
}

/** The first limit the entrant would pass, as the refusal to throw; undefined when it fits. */
export function roomProblem(live: Iterable<Occupant>, entrant: Entrant, rules: RoomRules): RegistryError | undefined {
  let count = 0;
  let ofApp = 0;
  let bytes = 0;
  let appBytes = 0;
  for (const occupant of live) {
    count += 1;
    const own = occupant.appClientId === entrant.appClientId;
    if (own) ofApp += 1;
    if (occupant === entrant.replacing) continue;
    bytes += occupant.bytes;
    if (own) appBytes += occupant.bytes;
  }
  if (!entrant.replacing && ofApp >= rules.maxRegistrationsPerApp) return new RegistryError('TOO_MANY_REGISTRATIONS_OF_APP');
  if (!entrant.replacing && count >= rules.maxRegistrations) return new RegistryError('TOO_MANY_REGISTRATIONS');
  const { maxAppBytes, maxCatalogBytes } = rules.limits;
  if (appBytes + entrant.bytes > maxAppBytes) {
    return new RegistryError(
      'CATALOG_LIMIT',
      `The app's registrations would take ${appBytes + entrant.bytes} bytes of tools; one app may hold at most ${maxAppBytes} (REGISTRY_MAX_APP_BYTES). ` +
        'Deregister a service, or offer smaller tools.',
    );
  }
  if (bytes + entrant.bytes > maxCatalogBytes) {
    return new RegistryError(
      'CATALOG_LIMIT',
      `The gateway holds as many bytes of tools as it takes (${maxCatalogBytes}, REGISTRY_MAX_CATALOG_BYTES); try again later.`,
    );
  }
  return undefined;
}
