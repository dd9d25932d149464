// The reorder rule of DESIGN §8: a reorder body lists every existing id exactly once, else 400.
import { badRequest } from './errors.js';

/**
 * Returns the positions that change (id → new position) when `given` is a permutation of `existing`;
 * throws 400 naming `field` otherwise (a missing, unknown or repeated id).
 */
export function planReorder(
  existing: ReadonlyArray<{ id: string; position: number }>,
  given: readonly string[],
  field: string,
  what: string,
): Array<{ id: string; position: number }> {
  const known = new Map(existing.map((row) => [row.id, row.position]));
  if (
    new Set(given).size !== given.length ||
    given.length !== known.size ||
    given.some((id) => !known.has(id))
  ) {
    throw badRequest(`${field} must list every existing ${what} exactly once`, {
      fields: { [`body.${field}`]: `must contain exactly the existing ${what} ids` },
    });
  }
  return given.flatMap((id, position) => (known.get(id) === position ? [] : [{ id, position }]));
}
