// The ports fetch refuses to connect to: the WHATWG Fetch standard's "bad port" list, the same
// numbers as undici (Node's fetch) has them. A service on one of them is unreachable from every
// fetch client (the stack's own readiness checks, the SDK, a browser), so the settings refuse them.

/** @see https://fetch.spec.whatwg.org/#port-blocking */
const blocked = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137,
  139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** Every port fetch refuses, in ascending order. */
export const fetchBlockedPorts: readonly number[] = Object.freeze([...blocked].sort((a, b) => a - b));

/** Whether fetch refuses to connect to `port` (an http or https URL on it fails with "bad port"). */
export function isFetchBlockedPort(port: number): boolean {
  return blocked.has(port);
}

/** Why such a port is refused, after "must not be N: " in a settings message. */
export const fetchBlockedPortReason = 'fetch refuses to connect to it (a blocked port); choose another';
