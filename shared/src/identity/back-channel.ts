// The platform's front channel and back channel, as Keycloak's hostname and backchannel URL: the
// addresses that identify the platform (its API base, the audience of its tokens; its OAuth issuer)
// stay what clients everywhere agree on, while this process sends its own requests for them to the
// back channel, an address it can reach (a container network name over https). Only the origin
// changes: path and query are kept, so a discovered issuer still compares equal to the identity.

/** The fetch of a process whose platform requests go to `backChannel` instead of the identities' origins. */
export interface BackChannelOptions {
  /** The platform's identities (PLATFORM_API_BASE_URL, PLATFORM_ISSUER_URL): requests to their origins are sent to the back channel. */
  readonly identities: readonly string[];
  /** Where this process reaches the platform: an origin (scheme, host and port), https off loopback. */
  readonly backChannel: string;
  /** The fetch requests are sent with; the global one (undici) by default. */
  readonly fetch?: typeof globalThis.fetch;
}

/** A fetch that sends requests for the identities' origins to the back channel's, everything else unchanged. */
export function backChannelFetch(options: BackChannelOptions): typeof globalThis.fetch {
  const backChannel = URL.canParse(options.backChannel) ? new URL(options.backChannel) : undefined;
  if (!backChannel || (backChannel.protocol !== 'https:' && backChannel.protocol !== 'http:') || backChannel.pathname !== '/' || backChannel.search) {
    throw new TypeError('backChannelFetch: backChannel must be an http(s) origin, without a path or query');
  }
  const fronts = new Set(
    options.identities.map((identity) => {
      if (!URL.canParse(identity)) throw new TypeError('backChannelFetch: identities must be absolute URLs');
      return new URL(identity).origin;
    }),
  );
  const fetch = options.fetch ?? globalThis.fetch;
  const redirected = (url: URL): URL | undefined => {
    if (!fronts.has(url.origin)) return undefined;
    return new URL(`${url.pathname}${url.search}`, backChannel);
  };
  return (input, init) => {
    if (input instanceof Request) {
      const to = redirected(new URL(input.url));
      return fetch(to ? new Request(to, input) : input, init);
    }
    return fetch(redirected(new URL(input)) ?? input, init);
  };
}

/** The process's fetch for platform requests: the back channel's when one is set, the global one otherwise. */
export function platformFetch(settings: {
  readonly backChannelUrl?: string | undefined;
  readonly identities: readonly string[];
}): typeof globalThis.fetch | undefined {
  return settings.backChannelUrl === undefined ? undefined : backChannelFetch({ identities: settings.identities, backChannel: settings.backChannelUrl });
}
