// A count that stops at a cap (SEARCH_LIMITS.countCap), as every search and filter total does: read up to cap + 1
// rows, so that one more than the cap says there are more.

export interface CappedTotal {
  total: number;
  /** False past the cap: `total` is then the cap, a lower bound. */
  exact: boolean;
}

export const cappedTotal = (count: number, cap: number): CappedTotal =>
  count > cap ? { total: cap, exact: false } : { total: count, exact: true };
