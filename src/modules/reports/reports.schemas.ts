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
} from '../../core/http/schemas.js';
import { REPORT_STATUSES } from './reports.states.js';

export const USER_REPORT_REASONS = [
  'HARASSMENT',
  'SPAM',
  'INAPPROPRIATE_CONTENT',
  'IMPERSONATION',
  'CHEATING',
  'OTHER',
] as const;
export const RESOURCE_REPORT_REASONS = [
  'SPAM',
  'REUPLOADED_WORK',
  'INAPPROPRIATE',
  'MALICIOUS',
  'NAME_SQUATTING',
  'POOR_DESCRIPTION',
  'INVALID_METADATA',
  'OTHER',
] as const;
export type UserReportReason = (typeof USER_REPORT_REASONS)[number];
export type ResourceReportReason = (typeof RESOURCE_REPORT_REASONS)[number];
export type ReportReason = UserReportReason | ResourceReportReason;
const ALL_REASONS = [...new Set([...USER_REPORT_REASONS, ...RESOURCE_REPORT_REASONS])];

export const ReportStatusName = StringEnum(REPORT_STATUSES, {
  description: 'PENDING → UNDER_REVIEW → RESOLVED or DISMISSED (RESOLVE and DISMISS also from PENDING)',
});
export const ReportTargetTypeName = StringEnum(['USER', 'RESOURCE'] as const);
export const ResourceTypeOfReport = Type.String({
  description: "The resource's type (MOD, PLUGIN, …) at the time it was reported",
});

const ReportDescription = Type.String({
  minLength: 1,
  maxLength: 5000,
  description: 'What happened; required when the reason is OTHER',
});

export const CreateUserReportBody = Type.Object(
  {
    reason: StringEnum(USER_REPORT_REASONS),
    description: Type.Optional(ReportDescription),
    evidence: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 5000,
        description: 'Links (screenshots, messages…) or text supporting the report',
      }),
    ),
  },
  { additionalProperties: false },
);

export const CreateResourceReportBody = Type.Object(
  {
    reason: StringEnum(RESOURCE_REPORT_REASONS),
    description: Type.Optional(ReportDescription),
  },
  { additionalProperties: false },
);

const createdFields = {
  id: Id,
  reporterId: Id,
  reason: StringEnum(ALL_REASONS),
  status: ReportStatusName,
  createdAt: Timestamp,
};

export const CreatedUserReport = Type.Object({ ...createdFields, reportedUserId: Id });
export const CreatedResourceReport = Type.Object({
  ...createdFields,
  resourceType: ResourceTypeOfReport,
  resourceId: Id,
});

export const Report = named(
  'Report',
  Type.Object({
    id: Id,
    reporterId: Id,
    targetType: ReportTargetTypeName,
    reportedUserId: Nullable(Id),
    resourceType: Nullable(ResourceTypeOfReport),
    resourceId: Nullable(Id),
    reason: StringEnum(ALL_REASONS),
    description: Nullable(Type.String()),
    evidence: Nullable(Type.String()),
    status: ReportStatusName,
    resolution: Nullable(Type.String()),
    moderatorNotes: Nullable(Type.String()),
    moderatedBy: Nullable(Type.String({ description: 'Id of the moderator who acted last' })),
    moderatedAt: Nullable(Timestamp),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  }),
);

export const MyReportList = Type.Object({
  reports: Type.Array(ref(Report), { description: 'Newest first' }),
  total: Type.Integer(),
  meta: ref(PageMeta),
});

export const MyReportsQuery = LimitOffsetQuery;
export const ReportIdParams = Type.Object({ reportId: Id });
export const ReportedUserParams = Type.Object({ userId: Id });
export const ReportedResourceParams = Type.Object({ resourceId: Id });
