// utcDay: the download deduplication day is the UTC calendar day, whatever the offset the time was written in.
import { describe, expect, it } from 'vitest';
import { DAY_MS, ManualClock } from '../../../src/core/clock.js';
import { utcDay } from '../../../src/core/files/download-day.js';

describe('utcDay', () => {
  it.each([
    ['2026-03-14T23:59:59.999Z', '2026-03-14'],
    ['2026-03-15T00:00:00.000Z', '2026-03-15'],
    ['2026-12-31T23:59:59.999Z', '2026-12-31'],
    ['2027-01-01T00:00:00.000Z', '2027-01-01'],
    ['2028-02-29T12:00:00.000Z', '2028-02-29'],
    // Written with offsets: the UTC day counts, not the local one.
    ['2026-03-15T01:30:00.000+02:00', '2026-03-14'],
    ['2026-03-14T20:00:00.000-05:00', '2026-03-15'],
  ])('%s → %s', (time, day) => {
    expect(utcDay(new Date(time))).toBe(day);
  });

  it('changes exactly at midnight UTC as a clock moves', () => {
    const clock = new ManualClock('2026-03-14T23:59:59.999Z');
    expect(utcDay(clock.now())).toBe('2026-03-14');
    clock.advance(1);
    expect(utcDay(clock.now())).toBe('2026-03-15');
    clock.advance(DAY_MS - 1);
    expect(utcDay(clock.now())).toBe('2026-03-15');
    clock.advance(1);
    expect(utcDay(clock.now())).toBe('2026-03-16');
  });
});
