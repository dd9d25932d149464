import { Type } from 'typebox';
import { INVITABLE_TEAM_ROLES, TEAM_ROLES } from '../../core/auth/access.js';
import {
  Id,
  LimitOffsetQuery,
  Name,
  Nullable,
  PageMeta,
  ShortDescription,
  Slug,
  StringEnum,
  Timestamp,
  named,
  ref,
} from '../../core/http/schemas.js';
import { SocialLink } from '../social-links/social-links.schemas.js';
import { UserSummary } from '../users/users.schemas.js';

export const TeamRoleName = StringEnum(TEAM_ROLES, { description: 'MEMBER < MODERATOR < ADMIN < OWNER' });
export const InvitableTeamRoleName = StringEnum(INVITABLE_TEAM_ROLES, {
  description: 'OWNER cannot be invited: ownership is handed over with PATCH /teams/:id/members/:memberId',
});

export const TeamMember = named(
  'TeamMember',
  Type.Object({
    userId: Id,
    role: TeamRoleName,
    teamId: Id,
    user: ref(UserSummary),
    joinedAt: Timestamp,
  }),
);

const teamFields = {
  id: Id,
  name: Type.String(),
  slug: Type.String(),
  description: Nullable(Type.String()),
  logoUrl: Nullable(Type.String()),
  bannerUrl: Nullable(Type.String()),
  ownerId: Id,
  memberCount: Type.Integer(),
  resourceCount: Type.Integer({ description: 'Resources owned by the team' }),
  serverCount: Type.Integer({ description: 'Servers owned by the team' }),
  createdAt: Timestamp,
};

export const TeamListItem = named('TeamListItem', Type.Object(teamFields));

export const Team = named(
  'Team',
  Type.Object({
    ...teamFields,
    updatedAt: Timestamp,
    members: Type.Array(ref(TeamMember), {
      description: 'OWNER first, then by role rank, then oldest first',
    }),
    socialLinks: Type.Array(ref(SocialLink)),
  }),
);

export const TeamList = Type.Object({
  teams: Type.Array(ref(TeamListItem)),
  total: Type.Integer(),
  meta: ref(PageMeta),
});

export const MyTeams = Type.Object({
  teams: Type.Array(
    Type.Object({
      id: Id,
      name: Type.String(),
      slug: Type.String(),
      role: TeamRoleName,
      logoUrl: Nullable(Type.String()),
    }),
  ),
});

export const TeamListQuery = Type.Object({
  ...LimitOffsetQuery.properties,
  search: Type.Optional(
    Type.String({
      maxLength: 100,
      description:
        'Full-text search of the name, the slug and the description: every word must match, the last one as ' +
        'a prefix unless the search ends with a space or punctuation; case and diacritics are ignored. ' +
        'Words typed joined by punctuation (`epic-trees`, `user_42`) must stand next to each other, in that ' +
        'order, within one field. ' +
        'Results by relevance (the exact name, then all words in the name, in the name and slug, anywhere), ' +
        'then most members. No word (empty, punctuation only) means no search',
    }),
  ),
});

export const CreateTeamBody = Type.Object(
  {
    name: Name,
    slug: Slug,
    description: Type.Optional(Nullable(ShortDescription)),
  },
  { additionalProperties: false },
);

export const UpdateTeamBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Nullable(ShortDescription)),
  },
  { additionalProperties: false },
);

export const TeamIdParams = Type.Object({ id: Id });
export const TeamSlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 100 }) });
