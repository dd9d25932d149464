// Time comes from a clock object so tests can move it (invitation expiry, download days, suspensions).
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests can set and advance. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: Date | string = '2026-01-15T12:00:00.000Z') {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  set(time: Date | string): void {
    this.current = new Date(time).getTime();
  }

  advance(milliseconds: number): void {
    this.current += milliseconds;
  }
}

export const DAY_MS = 24 * 60 * 60 * 1000;
