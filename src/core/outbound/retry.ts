// When a failed outbound delivery is tried again — webhook deliveries (spec/extensions.md §1.2) and Votifier
// votes (§3, "retried like webhooks") share this schedule: about 30 s, 2 min, 10 min, 1 h, 6 h and 24 h
// after the attempts before it, each jittered by up to ±10 % so that many deliveries that failed together (a
// receiver outage) do not all come back in the same second. After the seventh attempt the delivery is FAILED.
const MINUTE = 60_000;
export const RETRY_DELAYS_MS = [
  30_000,
  2 * MINUTE,
  10 * MINUTE,
  60 * MINUTE,
  6 * 60 * MINUTE,
  24 * 60 * MINUTE,
];
export const JITTER = 0.1;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** Delay before the next attempt after `attemptsMade` failed ones, or null when there is none left. */
export function retryDelayMs(attemptsMade: number, random: () => number = Math.random): number | null {
  const base = RETRY_DELAYS_MS[attemptsMade - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 + JITTER * (2 * random() - 1)));
}

/** Consecutive FAILED deliveries after which a webhook is switched off (webhooks only). */
export const AUTO_DISABLE_AFTER = 50;
