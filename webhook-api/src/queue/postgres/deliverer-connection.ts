// The deliverer's own connections to PostgreSQL: a small pool whose sessions plan with index scans
// only (enable_seqscan and enable_bitmapscan off, as startup options of each connection). A claim
// takes the first few due rows in an index's order; with statistics taken while the queue was
// short (or none yet) the planner would read and sort every due row instead. Set per session, the
// claim is one statement that commits on its own, where a shared pool needed a transaction around
// it to set the planner (three round trips more per claim). JIT off: a plan that has to scan a small
// table whole carries the cost that turning sequential scans off puts on it, which passes JIT's
// threshold, and compiling then took hundreds of milliseconds of a statement that runs in one.

/** How many connections a deliverer's pool holds: its pump's claims, the settlement writer, lease renewals. */
export const delivererConnections = 3;

const plannerOptions = '-c enable_seqscan=off -c enable_bitmapscan=off -c jit=off';

/** `url` with the planner options added to any it has; undefined when it is not a URL (keyword/value strings are left as they are). */
export function delivererConnectionString(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const given = parsed.searchParams.get('options');
  parsed.searchParams.set('options', given ? `${given} ${plannerOptions}` : plannerOptions);
  return parsed.href;
}
