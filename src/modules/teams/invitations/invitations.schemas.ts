import { Type } from 'typebox';
import { INVITABLE_TEAM_ROLES } from '../../../core/auth/access.js';
import { Id, Nullable, StringEnum, Timestamp, named, ref } from '../../../core/http/schemas.js';
import { UserSummary } from '../../users/users.schemas.js';
import { InvitableTeamRoleName, TeamRoleName } from '../teams.schemas.js';

export const INVITATION_STATUSES = ['PENDING', 'ACCEPTED', 'DECLINED', 'CANCELLED'] as const;
export const InvitationStatusName = StringEnum(INVITATION_STATUSES);

const lifetime = {
  createdAt: Timestamp,
  expiresAt: Type.String({
    format: 'date-time',
    description:
      '7 days after creation; an expired invitation keeps the status PENDING but cannot be answered',
  }),
};

export const TeamInvitation = named(
  'TeamInvitation',
  Type.Object({
    id: Id,
    teamId: Id,
    userId: Id,
    role: InvitableTeamRoleName,
    status: InvitationStatusName,
    ...lifetime,
  }),
);

export const TeamInvitationList = Type.Object({
  invitations: Type.Array(
    Type.Object(
      {
        id: Id,
        user: ref(UserSummary),
        role: InvitableTeamRoleName,
        status: InvitationStatusName,
        ...lifetime,
      },
      { title: 'TeamInvitationOfTeam' },
    ),
  ),
});

export const MyInvitationList = Type.Object({
  invitations: Type.Array(
    Type.Object(
      {
        id: Id,
        team: Type.Object({
          id: Id,
          name: Type.String(),
          slug: Type.String(),
          logoUrl: Nullable(Type.String()),
        }),
        role: InvitableTeamRoleName,
        status: InvitationStatusName,
        ...lifetime,
      },
      { title: 'TeamInvitationOfMine' },
    ),
  ),
});

export const InvitationStatusQuery = Type.Object({
  status: Type.Optional(
    StringEnum(INVITATION_STATUSES, {
      description: 'PENDING lists only invitations that can still be answered (not expired); omit for all',
    }),
  ),
});

export const CreateInvitationBody = Type.Object(
  {
    userId: Id,
    role: Type.Optional(
      StringEnum(INVITABLE_TEAM_ROLES, {
        description: 'Default MEMBER. An admin may invite MEMBER or MODERATOR only; ADMIN needs the owner.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const RespondBody = Type.Object({ accept: Type.Boolean() }, { additionalProperties: false });

export const RespondResult = Type.Object({
  message: Type.String(),
  teamMember: Nullable(
    Type.Object({ teamId: Id, userId: Id, role: TeamRoleName }, { description: 'null when declined' }),
  ),
});

export const TeamInvitationParams = Type.Object({ id: Id, invitationId: Id });
export const InvitationIdParams = Type.Object({ invitationId: Id });
