// Teams: create, read, edit, delete and the two images (DESIGN §8 "Teams"). Members and invitations live in
// their own sub-modules; permissions come from core/auth/access.ts.
import type { Kysely } from 'kysely';
import type { Access } from '../../core/auth/access.js';
import type { Actor } from '../../core/auth/authenticate.js';
import type { Clock } from '../../core/clock.js';
import type { DialectName } from '../../core/db/database.js';
import { isUniqueViolation } from '../../core/db/dialect.js';
import type { DB } from '../../core/db/schema.js';
import { conflict, notFound, slugTaken } from '../../core/http/errors.js';
import { newId } from '../../core/ids.js';
import { replaceStoredImage } from '../../core/images-store.js';
import type { MediaUrls } from '../../core/media-urls.js';
import type { Storage } from '../../core/storage/storage.js';
import { refreshDocumentsOfOwner } from '../search/owner-documents.js';
import { refreshTeamSearch } from '../search/team-documents.js';
import { parseSearch } from '../search/text.js';
import { toSocialLink } from '../social-links/social-links.mapper.js';
import { deleteLinksOfOwner, listLinks } from '../social-links/social-links.repo.js';
import { toTeamMembers } from './members/members.mapper.js';
import { insertMember, listMembers, listTeamsOfUser } from './members/members.repo.js';
import { recordTeamEvent } from './team-events.js';
import { toMyTeam, toTeam, toTeamListItem } from './teams.mapper.js';
import type { TeamView } from './teams.mapper.js';
import * as repo from './teams.repo.js';
import type { TeamRow } from './teams.repo.js';

export interface NewTeam {
  name: string;
  slug: string;
  description?: string | null;
}

export interface TeamPatch {
  name?: string;
  description?: string | null;
}

export type TeamImageKind = 'logo' | 'banner';

const IMAGES = {
  logo: { column: 'logo_key', scope: 'team-logos', box: { maxWidth: 512, maxHeight: 512 } },
  banner: { column: 'banner_key', scope: 'team-banners', box: { maxWidth: 1920, maxHeight: 1080 } },
} as const;

/** An empty description means "none", like null. */
const normalizeDescription = (description: string | null | undefined) =>
  description === undefined || description === null || description === '' ? null : description;

export type TeamsService = ReturnType<typeof createTeamsService>;

export function createTeamsService(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  storage: Storage;
  urls: MediaUrls;
  clock: Clock;
  access: Access;
}) {
  const { db, dialect, storage, urls, clock, access } = deps;

  async function requireTeam(teamId: string): Promise<TeamRow> {
    const row = await repo.findTeamById(db, teamId);
    if (row === undefined) throw notFound('Team');
    return row;
  }

  /** 404 for an unknown team before 403 for a caller without the role. */
  async function requireManageable(actor: Actor | null, teamId: string): Promise<TeamRow> {
    const team = await requireTeam(teamId);
    await access.authorize(actor, 'team.manage', { teamId });
    return team;
  }

  async function view(row: TeamRow): Promise<TeamView> {
    const [members, links] = await Promise.all([listMembers(db, row.id), listLinks(db, 'TEAM', row.id)]);
    return toTeam(row, urls, toTeamMembers(members, urls), links.map(toSocialLink));
  }

  /** Stores the new image first, then swaps the key in the row, then removes the old object (DESIGN §4.6). */
  async function replaceImage(
    actor: Actor,
    teamId: string,
    kind: TeamImageKind,
    read: (() => Promise<Buffer>) | null,
  ) {
    const team = await requireManageable(actor, teamId);
    const { column, scope, box } = IMAGES[kind];
    const at = clock.now().toISOString();
    const key = await replaceStoredImage(
      storage,
      {
        previous: team[column],
        swap: (next) => repo.swapTeamImage(db, teamId, column, team[column], next, at),
        current: async () => (await repo.findTeamById(db, teamId))?.[column],
        what: `team ${kind}`,
        owner: 'Team',
      },
      read === null ? null : { upload: await read(), scope, ownerId: teamId, options: box },
    );
    return view({ ...team, [column]: key, updated_at: at });
  }

  return {
    requireTeam,
    requireManageable,

    /** Newest first; with a search (full text), by relevance (teams.repo.ts searchTeams). */
    async list(search: string | undefined, limit: number, offset: number) {
      const query = parseSearch(search ?? '');
      const [rows, total] = await Promise.all([
        query === null
          ? repo.listTeams(db, limit, offset)
          : repo.searchTeams(db, dialect, query, limit, offset),
        query === null ? repo.readTeamTotal(db) : repo.countTeamsMatching(db, dialect, query),
      ]);
      return { teams: rows.map((row) => toTeamListItem(row, urls)), total };
    },

    async getBySlug(slug: string): Promise<TeamView> {
      const row = await repo.findTeamBySlug(db, slug);
      if (row === undefined) throw notFound('Team');
      return view(row);
    },

    /**
     * The creator becomes the one OWNER; the team, the membership and the team total change together. That first
     * membership is the team's first event (team.member_added), so its log starts with its owner.
     */
    async create(actor: Actor, input: NewTeam): Promise<TeamView> {
      if (await repo.slugExists(db, input.slug)) throw slugTaken(input.slug);
      const now = clock.now().toISOString();
      const row: TeamRow = {
        id: newId(),
        name: input.name,
        slug: input.slug,
        description: normalizeDescription(input.description),
        logo_key: null,
        banner_key: null,
        owner_id: actor.userId,
        member_count: 1,
        resource_count: 0,
        server_count: 0,
        created_at: now,
        updated_at: now,
      };
      try {
        await db.transaction().execute(async (trx) => {
          await repo.insertTeam(trx, row);
          await insertMember(trx, { team_id: row.id, user_id: actor.userId, role: 'OWNER', created_at: now });
          await repo.moveTeamTotal(trx, 1);
          await refreshTeamSearch(trx, [row.id]);
          await recordTeamEvent(trx, 'team.member_added', {
            at: now,
            actorId: actor.userId,
            teamId: row.id,
            data: { userId: actor.userId, role: 'OWNER' },
          });
        });
      } catch (error) {
        // Lost a race with a concurrent creation under the same slug.
        if (isUniqueViolation(error)) throw slugTaken(input.slug);
        throw error;
      }
      return view(row);
    },

    async update(actor: Actor, teamId: string, patch: TeamPatch): Promise<TeamView> {
      const team = await requireManageable(actor, teamId);
      const changes = {
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.description !== undefined ? { description: normalizeDescription(patch.description) } : {}),
      };
      if (Object.keys(changes).length === 0) return view(team);
      const updated = { ...changes, updated_at: clock.now().toISOString() };
      await db.transaction().execute(async (trx) => {
        if (!(await repo.updateTeam(trx, teamId, updated))) throw notFound('Team');
        await refreshTeamSearch(trx, [teamId]);
        // The team's name is in the search documents of what it owns.
        if (changes.name !== undefined && changes.name !== team.name) {
          await refreshDocumentsOfOwner(trx, dialect, 'TEAM', teamId);
        }
      });
      return view({ ...team, ...updated });
    },

    /**
     * Only an empty team can go (409 while it owns resources or servers). Rows first, in one transaction; the
     * stored images after the commit (DESIGN §4.6). Its memberships and invitations go with it and record no
     * team.member_removed each: there is no team left to read them under.
     */
    async remove(actor: Actor, teamId: string): Promise<void> {
      const team = await requireTeam(teamId);
      await access.authorize(actor, 'team.delete', { teamId });
      const stillOwns = () =>
        conflict(
          'The team still owns resources or servers; delete or transfer them first',
          'TEAM_NOT_EMPTY',
          {
            resourceCount: team.resource_count,
            serverCount: team.server_count,
          },
        );
      if (team.resource_count + team.server_count > 0) throw stillOwns();
      await db.transaction().execute(async (trx) => {
        if (!(await repo.deleteEmptyTeam(trx, teamId))) {
          if ((await repo.findTeamById(trx, teamId)) === undefined) throw notFound('Team');
          throw stillOwns();
        }
        // Social links are shared by several owner kinds, so they have no foreign key to cascade from.
        await deleteLinksOfOwner(trx, 'TEAM', teamId);
        await repo.moveTeamTotal(trx, -1);
        await refreshTeamSearch(trx, [teamId]);
      });
      // The team is gone whatever happens next: an object that fails to delete is only an orphan, not an error
      // worth reporting for a delete that succeeded.
      await Promise.allSettled(
        [team.logo_key, team.banner_key].flatMap((key) => (key === null ? [] : [storage.delete(key)])),
      );
    },

    setImage: (actor: Actor, teamId: string, kind: TeamImageKind, read: () => Promise<Buffer>) =>
      replaceImage(actor, teamId, kind, read),
    removeImage: (actor: Actor, teamId: string, kind: TeamImageKind) =>
      replaceImage(actor, teamId, kind, null),

    async myTeams(userId: string) {
      return (await listTeamsOfUser(db, userId)).map((row) => toMyTeam(row, urls));
    },
  };
}
