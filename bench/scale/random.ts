// Seeded randomness for the scale benchmark: the same seed gives the same catalogue and the same queries.
import { v7 } from 'uuid';

/** mulberry32: a fast 32-bit PRNG, uniform in [0, 1). */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const int = (random: () => number, n: number): number => Math.floor(random() * n);

export const pick = <T>(random: () => number, list: readonly T[]): T => list[int(random, list.length)]!;

/**
 * Ranks 0..n-1 drawn with probability ∝ 1/(rank+1)^s. A lookup table of the inverse CDF makes a draw O(1):
 * each of its buckets covers the ranks whose cumulative probability falls in it, and a draw picks uniformly
 * among them (exact for the head, where a bucket holds one rank; a close approximation in the tail).
 */
export function zipf(n: number, s = 1, buckets = 1 << 16): (random: () => number) => number {
  const weights = Array.from({ length: n }, (_, rank) => 1 / Math.pow(rank + 1, s));
  const total = weights.reduce((sum, w) => sum + w, 0);
  const low = new Int32Array(buckets);
  const high = new Int32Array(buckets);
  let rank = 0;
  let cumulative = weights[0]! / total;
  for (let b = 0; b < buckets; b++) {
    const start = b / buckets;
    const end = (b + 1) / buckets;
    while (cumulative <= start && rank < n - 1) cumulative += weights[++rank]! / total;
    low[b] = rank;
    let last = rank;
    let reach = cumulative;
    while (reach < end && last < n - 1) reach += weights[++last]! / total;
    high[b] = last;
  }
  return (random) => {
    const b = int(random, buckets);
    return low[b]! + int(random, high[b]! - low[b]! + 1);
  };
}

/** Log-normal: exp(mu + sigma·N(0,1)), rounded down (downloads, likes). */
export function logNormal(random: () => number, mu: number, sigma: number): number {
  const u = Math.max(random(), 1e-12);
  const normal = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
  return Math.floor(Math.exp(mu + sigma * normal));
}

/** An index by weight (small lists: types, statuses). */
export function weighted<T>(entries: ReadonlyArray<readonly [T, number]>): (random: () => number) => T {
  const total = entries.reduce((sum, [, w]) => sum + w, 0);
  return (random) => {
    let roll = random() * total;
    for (const [value, w] of entries) {
      roll -= w;
      if (roll < 0) return value;
    }
    return entries.at(-1)![0];
  };
}

/** A UUIDv7 of the given time whose random bits come from the seeded sequence (the same ids on every run). */
export function idAt(ms: number, random: () => number): string {
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 16; i++) bytes[i] = Math.floor(random() * 256);
  return v7({ msecs: ms, random: bytes });
}
