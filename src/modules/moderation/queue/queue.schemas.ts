// API shapes of queue positions and moderation statistics (spec/extensions.md §4).
import { Type } from 'typebox';
import { Nullable, named } from '../../../core/http/schemas.js';

export const ModerationQueuePosition = named(
  'ModerationQueuePosition',
  Type.Object(
    {
      position: Type.Integer({
        minimum: 1,
        description:
          '1-based place in the oldest-first queue of this kind, as the moderation lists order it (resources: ' +
          'by creation; versions: by their last submission; servers: by their last status change), ties by id',
      }),
      total: Type.Integer({ minimum: 1, description: 'PENDING items of this kind' }),
      estimatedReviewAt: Nullable(
        Type.String({
          format: 'date-time',
          description:
            'When the item entered the queue plus the median review time of this kind over the last 30 days, ' +
            'or now when that moment has passed; null when nothing of this kind was reviewed in 30 days',
        }),
      ),
    },
    {
      description:
        'Only on the single-object read of a PENDING item, and only for its owner side (owner, team members, ' +
        'contributors) and moderators; absent otherwise (other callers, anonymous callers, any other status)',
    },
  ),
);

const KindStats = Type.Object({
  pending: Type.Integer({
    minimum: 0,
    description: 'Waiting now (reports: PENDING and UNDER_REVIEW)',
  }),
  reviewedLast7Days: Type.Integer({
    minimum: 0,
    description:
      'Moderator decisions on waiting items in the last 7 days (7 × 24 h back from now, inclusive)',
  }),
  medianReviewSeconds30d: Nullable(
    Type.Integer({
      minimum: 0,
      description:
        'Median review time of the decisions of the last 30 days, in whole seconds; null without any',
    }),
  ),
  p90ReviewSeconds30d: Nullable(
    Type.Integer({
      minimum: 0,
      description:
        '90th percentile (nearest rank) of the same review times, in whole seconds; null without any',
    }),
  ),
});

export const ModerationStats = named(
  'ModerationStats',
  Type.Object({
    versions: KindStats,
    resources: KindStats,
    servers: KindStats,
    reports: KindStats,
  }),
);
