import { Type } from 'typebox';
import {
  Id,
  LimitOffsetQuery,
  Nullable,
  PageMeta,
  StringEnum,
  Timestamp,
  named,
  ref,
} from '../../../core/http/schemas.js';
import { RoleName, UserStatusName, UserSummary } from '../../users/users.schemas.js';
import { DuplicateMatches } from '../../versions/duplicates/duplicates.schemas.js';
import { Report, ReportStatusName, ResourceTypeOfReport } from '../reports.schemas.js';
import { MODERATION_ACTIONS, REPORT_STATUSES } from '../reports.states.js';

export const USER_ACTIONS = ['WARNING', 'SUSPENSION', 'BAN', 'NONE'] as const;
export const UserActionName = StringEnum(USER_ACTIONS, {
  description:
    'Applied to the reported account when a USER report is resolved: WARNING (recorded), SUSPENSION ' +
    '(7 days unless suspensionDays), BAN (every key and token revoked), NONE',
});
export const ModerationActionName = StringEnum(MODERATION_ACTIONS, {
  description:
    'TAKE_UNDER_REVIEW: PENDING → UNDER_REVIEW. RESOLVE / DISMISS: PENDING or UNDER_REVIEW → RESOLVED / ' +
    'DISMISSED. Anything else: 409.',
});

export const MIN_SUSPENSION_DAYS = 1;
export const MAX_SUSPENSION_DAYS = 365;

export const ReportedResource = named(
  'ReportedResource',
  Type.Object({
    id: Id,
    name: Type.String(),
    slug: Type.String(),
    type: Type.String({ description: 'The current type (resourceType is the one at report time)' }),
    status: Type.String({ description: 'The moderation status of the resource' }),
  }),
);

const moderationFields = {
  ...Report.properties,
  userAction: Nullable(UserActionName),
  suspensionDays: Nullable(Type.Integer({ description: 'With userAction SUSPENSION' })),
  reporter: ref(UserSummary),
};

export const ModerationReport = named(
  'ModerationReport',
  Type.Object({
    ...moderationFields,
    reportedUser: Nullable(ref(UserSummary)),
    resource: Nullable(ref(ReportedResource)),
  }),
);

export const ModerationReportList = Type.Object({
  reports: Type.Array(ref(ModerationReport)),
  total: Type.Integer({ description: 'Reports in the filtered status (or in all statuses)' }),
  meta: ref(PageMeta),
});

export const ModerationListQuery = Type.Object({
  ...LimitOffsetQuery.properties,
  status: Type.Optional(StringEnum(REPORT_STATUSES)),
  order: Type.Optional(
    StringEnum(['newest', 'oldest'] as const, {
      description: 'By creation time; default newest (oldest works a queue first in, first out)',
    }),
  ),
});

export const ReportHistoryEntry = Type.Object({
  action: ModerationActionName,
  fromStatus: ReportStatusName,
  toStatus: ReportStatusName,
  note: Nullable(Type.String({ description: 'The moderatorNotes given with this action' })),
  userAction: Nullable(UserActionName),
  moderator: Nullable(Type.Object({ id: Id, username: Type.String() })),
  createdAt: Timestamp,
});

export const ModerationReportDetail = named(
  'ModerationReportDetail',
  Type.Object({
    ...moderationFields,
    reportedUser: Nullable(
      Type.Object(
        {
          ...UserSummary.properties,
          role: RoleName,
          status: UserStatusName,
          previousReports: Type.Integer({
            description: 'Other reports filed against this user (any status), this one excluded',
          }),
        },
        {
          description:
            'The reported user; for a resource report, its owner when a user owns it (null for a team)',
        },
      ),
    ),
    resource: Nullable(
      Type.Object({
        ...ReportedResource.properties,
        resourceTypeAtReport: ResourceTypeOfReport,
        owner: Type.Object({
          type: StringEnum(['USER', 'TEAM'] as const),
          id: Id,
          name: Type.String({ description: 'Username or team name' }),
        }),
      }),
    ),
    history: Type.Array(ReportHistoryEntry, { description: 'Moderator actions, oldest first' }),
    matches: Type.Optional(DuplicateMatches),
  }),
);

export const ModerateReportBody = Type.Object(
  {
    action: ModerationActionName,
    resolution: Type.Optional(
      Type.String({ minLength: 1, maxLength: 5000, description: 'With RESOLVE or DISMISS' }),
    ),
    moderatorNotes: Type.Optional(
      Type.String({ maxLength: 5000, description: 'Replaces the notes; an empty string clears them' }),
    ),
    userAction: Type.Optional(UserActionName),
    suspensionDays: Type.Optional(
      Type.Integer({
        minimum: MIN_SUSPENSION_DAYS,
        maximum: MAX_SUSPENSION_DAYS,
        description: 'With userAction SUSPENSION; default 7',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ModerateReportResult = Type.Object({
  message: Type.String(),
  report: Type.Object({
    id: Id,
    status: ReportStatusName,
    resolution: Nullable(Type.String()),
    moderatedBy: Nullable(Id),
    moderatedAt: Nullable(Timestamp),
    userAction: Nullable(UserActionName),
  }),
});
