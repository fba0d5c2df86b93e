// Milliseconds since the epoch; injected wherever lifetimes are computed so tests control time.
/** The time now, in milliseconds since the epoch. */
export type Clock = () => number;

/** The system's clock (`Date.now`). */
export const systemClock: Clock = () => Date.now();
