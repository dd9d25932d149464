// The resource moderation status machine (DESIGN §8 "Resource moderation"), pure and table-tested.
import type { ResourceStatus } from '../../../core/db/schema.js';

export const MODERATION_ACTIONS = ['APPROVE', 'REJECT', 'SUSPEND', 'UNSUSPEND'] as const;
export type ModerationAction = (typeof MODERATION_ACTIONS)[number];

const TRANSITIONS: Record<ModerationAction, { from: readonly ResourceStatus[]; to: ResourceStatus }> = {
  APPROVE: { from: ['PENDING', 'REJECTED'], to: 'APPROVED' },
  REJECT: { from: ['PENDING', 'APPROVED'], to: 'REJECTED' },
  SUSPEND: { from: ['PENDING', 'APPROVED'], to: 'SUSPENDED' },
  UNSUSPEND: { from: ['SUSPENDED'], to: 'APPROVED' },
};

/** The status an action leads to from `status`, or null when the action is not allowed there (409). */
export function nextStatus(status: ResourceStatus, action: ModerationAction): ResourceStatus | null {
  const transition = TRANSITIONS[action];
  return transition.from.includes(status) ? transition.to : null;
}

/** The statuses an action accepts, for error messages. */
export const acceptedStatuses = (action: ModerationAction): readonly ResourceStatus[] =>
  TRANSITIONS[action].from;
