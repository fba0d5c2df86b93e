// Moved to the SDK's testing export (`@platform/shared/testing`); this file goes once no test imports it.
export { closedPort, discoveryDocument, listen, manualClock, platformFailure, tokenExpiringIn, type ManualClock } from '../src/testing/index.ts';
