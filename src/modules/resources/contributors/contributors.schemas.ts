import { Type } from 'typebox';
import type { ResourceContributorRole } from '../../../core/db/schema.js';
import { Id, StringEnum, Timestamp, named, ref } from '../../../core/http/schemas.js';
import { UserSummary } from '../../users/users.schemas.js';

export const CONTRIBUTOR_ROLES = [
  'CONTRIBUTOR',
  'MAINTAINER',
] as const satisfies readonly ResourceContributorRole[];

export const ContributorRoleName = StringEnum(CONTRIBUTOR_ROLES, {
  description: 'CONTRIBUTOR edits the resource and uploads files; MAINTAINER also manages other contributors',
});

export const Contributor = named(
  'ResourceContributor',
  Type.Object({
    id: Id,
    userId: Id,
    resourceId: Id,
    role: ContributorRoleName,
    user: ref(UserSummary),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  }),
);

export const ContributorList = Type.Object({ contributors: Type.Array(ref(Contributor)) });

export const AddContributorBody = Type.Object(
  { userId: Id, role: ContributorRoleName },
  { additionalProperties: false },
);

export const ChangeContributorRoleBody = Type.Object(
  { role: ContributorRoleName },
  { additionalProperties: false },
);

export const ContributorRoleResult = Type.Object({ id: Id, role: ContributorRoleName, updatedAt: Timestamp });

export const ContributorParams = Type.Object({ resourceId: Id, userId: Id });
export const ResourceParams = Type.Object({ resourceId: Id });
