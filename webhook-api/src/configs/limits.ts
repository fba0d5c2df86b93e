// The documented bounds on what one tenant can make the service hold and work through: how many
// configurations a company may have, devices a configuration may link, scopes a link may carry.
// Each list endpoint pages up to the same number, so by default one page returns everything.

export interface WebhookLimits {
  readonly configsPerCompany: number;
  readonly devicesPerConfig: number;
  readonly scopesPerLink: number;
}

export const defaultLimits: WebhookLimits = Object.freeze({
  configsPerCompany: 100,
  devicesPerConfig: 1000,
  scopesPerLink: 50,
});
