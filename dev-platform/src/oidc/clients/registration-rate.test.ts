import { describe, expect, it } from 'vitest';
import { manualClock } from '@platform/tool-sdk/testing';
import { createRegistrationRate, registrationSource } from './registration-rate.ts';

describe('registrationSource', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.3.200.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.7', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['203.0.113.7', '203.0.113.0/24'],
    ['::ffff:203.0.113.200', '203.0.113.0/24'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9%eth0', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
  ])('counts %s against %s', (address, source) => {
    expect(registrationSource(address)).toBe(source);
  });
});

describe('createRegistrationRate', () => {
  it('counts every address of the loopback range as one source', () => {
    const rate = createRegistrationRate(3, manualClock());
    expect([1, 2, 3, 4, 5].map((n) => rate(`127.0.${n}.${n}`))).toEqual([undefined, undefined, undefined, 60, 60]);
    expect(rate('::1')).toBe(60);
    expect(rate('198.51.100.1')).toBeUndefined();
  });

  it('counts a network once its minute is over as new', () => {
    const clock = manualClock();
    const rate = createRegistrationRate(1, clock);
    expect(rate('198.51.100.1')).toBeUndefined();
    clock.advance(59_500);
    expect(rate('198.51.100.254')).toBe(1);
    clock.advance(500);
    expect(rate('198.51.100.2')).toBeUndefined();
  });
});
