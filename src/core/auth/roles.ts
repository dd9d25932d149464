import type { Role } from '../db/schema.js';

export const ROLES = ['USER', 'MODERATOR', 'ADMIN', 'SUPER_ADMIN'] as const satisfies readonly Role[];

const RANK: Record<Role, number> = { USER: 0, MODERATOR: 1, ADMIN: 2, SUPER_ADMIN: 3 };

/** "Moderator or admin" in the interface means that rank or higher (DESIGN §7). */
export function hasRank(role: Role, minimum: Role): boolean {
  return RANK[role] >= RANK[minimum];
}
