// Profiles show badges; the badges module owns them. Users depend only on this reader.
import type { ExpressionBuilder, RawBuilder } from 'kysely';
import { sql } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import type { DB } from '../../core/db/schema.js';
import type { ProfileBadgeView } from './users.mapper.js';

/** A column of a query over `users`: the row's badges, in one value the reader parses back. */
export type BadgesColumn = (dialect: DialectName, eb: ExpressionBuilder<DB, 'users'>) => RawBuilder<unknown>;

export interface BadgeReader {
  /** Active badges of each user, newest award first. Users without badges are absent from the map. */
  forUsers(userIds: readonly string[]): Promise<Map<string, ProfileBadgeView[]>>;
  /**
   * The same badges of the row's user (`users.id`) as one column, so that a profile and its badges are read in one
   * round trip; `parse` turns the column's value into the views.
   */
  column: BadgesColumn;
  parse(value: unknown): ProfileBadgeView[];
}

/** Until the badges module is installed, nobody has badges. */
export const noBadges: BadgeReader = {
  forUsers: () => Promise.resolve(new Map()),
  column: () => sql`null`,
  parse: () => [],
};
