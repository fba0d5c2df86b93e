// Milliseconds since the epoch; injected wherever lifetimes are computed so tests control time.
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();
