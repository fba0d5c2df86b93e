// The token check the cache's tests hand CachedTokenResolver: it counts its calls, so a test can say
// how many checks a run of look-ups made.

/** Who a check answers for. */
export interface Who {
  sub: string;
}

/** A check that counts its calls and answers what `answer` says (user-1 unless told). */
export function countingCheck(answer: () => Who | null | Promise<Who | null> = () => ({ sub: 'user-1' })) {
  const check = async () => {
    check.calls += 1;
    return answer();
  };
  check.calls = 0;
  return check;
}

/** The scope the tests' caches are for. */
export const scope = 'http://127.0.0.1:4000';
