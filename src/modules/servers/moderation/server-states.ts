// The server moderation status machine (DESIGN §8 "Servers": statuses as resources; approve also lifts a
// suspension). Pure, so every transition is unit-tested in a table.
import type { ServerStatus } from '../../../core/db/schema.js';

export type ServerModerationAction = 'APPROVE' | 'REJECT' | 'SUSPEND';

const TRANSITIONS: Record<ServerModerationAction, { from: readonly ServerStatus[]; to: ServerStatus }> = {
  APPROVE: { from: ['PENDING', 'REJECTED', 'SUSPENDED'], to: 'APPROVED' },
  REJECT: { from: ['PENDING', 'APPROVED'], to: 'REJECTED' },
  SUSPEND: { from: ['PENDING', 'APPROVED'], to: 'SUSPENDED' },
};

/** The status a moderation action leads to from `from`, or null when the action is not allowed there (409). */
export function nextServerStatus(from: ServerStatus, action: ServerModerationAction): ServerStatus | null {
  const transition = TRANSITIONS[action];
  return transition.from.includes(from) ? transition.to : null;
}

/** The statuses an action accepts, for error messages and documentation. */
export const acceptedStatuses = (action: ServerModerationAction): readonly ServerStatus[] =>
  TRANSITIONS[action].from;

/** An owner-side edit of a REJECTED server sends it back to review; other statuses stay as they are. */
export const statusAfterOwnerEdit = (status: ServerStatus): ServerStatus =>
  status === 'REJECTED' ? 'PENDING' : status;
