// A file whose one test passes and whose afterAll throws: the summary must count it as a failure.
import { afterAll, expect, it } from 'vitest';

afterAll(() => {
  throw new Error('the afterAll of the fixture fails');
});

it('passes', () => {
  expect(1).toBe(1);
});
