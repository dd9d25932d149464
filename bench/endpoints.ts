// The endpoints `npm run bench` measures, with the share of bare node:http each must reach.
// Later modules append theirs.
export interface BenchEndpoint {
  name: string;
  /** Path with :placeholders filled from the seed targets. */
  path: string;
  /** Minimum ratio to bare node:http the issue sets (reported, not enforced). */
  target: number;
  /** The status a good answer has (default 200); redirects are measured as answered, never followed. */
  status?: number;
  /**
   * Sent with the seeded contributor's API key (the user is a CONTRIBUTOR of the target resource and holds
   * badges): kept anonymous answers never serve these.
   */
  auth?: true;
  /**
   * A write mix instead of one path: each pass of a connection takes the next seeded caller (own key, own
   * resource to like, own user to follow) and runs these requests in order, so every pass leaves the data as it
   * found it. Paths take :mixResourceId and :mixUserId.
   */
  mix?: Array<{ method: 'POST' | 'DELETE'; path: string }>;
  /** Minimum PostgreSQL/SQLite req/s ratio the issue sets (BENCH_COMPARE; reported, not enforced). */
  pgTarget?: number;
}

export const ENDPOINTS: BenchEndpoint[] = [
  { name: 'GET /users/:userId (public profile)', path: '/users/:userId', target: 0.4, pgTarget: 0.5 },
  { name: 'GET /users/username/:username', path: '/users/username/:username', target: 0.4, pgTarget: 0.5 },
  { name: 'GET /health', path: '/health', target: 0 },
  { name: 'GET /resources/slug/:slug', path: '/resources/slug/:resourceSlug', target: 0.4, pgTarget: 0.5 },
  { name: 'GET /resources (default sort, 20 items)', path: '/resources', target: 0.2, pgTarget: 0.7 },
  { name: 'GET /servers (default sort, 20 items)', path: '/servers', target: 0.2, pgTarget: 0.7 },
  { name: 'GET /servers/slug/:slug', path: '/servers/slug/:serverSlug', target: 0, pgTarget: 0.5 },
  {
    name: 'GET …/versions/:versionId/download/:fileId (302)',
    path: '/resources/:resourceId/versions/:versionId/download/:fileId',
    target: 0.3,
    status: 302,
    pgTarget: 0.5,
  },
  { name: 'GET /resource-tags', path: '/resource-tags', target: 0, pgTarget: 0.5 },
  // Authenticated: the credential lookup on every request, and nothing kept.
  { name: 'GET /users/me (API key)', path: '/users/me', target: 0, auth: true, pgTarget: 0.5 },
  {
    name: 'GET /users/:userId (API key: isFollowing)',
    path: '/users/:userId',
    target: 0,
    auth: true,
    pgTarget: 0.5,
  },
  {
    name: 'GET /resources/slug/:slug (API key, contributor)',
    path: '/resources/slug/:resourceSlug',
    target: 0,
    auth: true,
    pgTarget: 0.5,
  },
  {
    name: 'GET /resources/slug/:slug (API key, contributor, PENDING)',
    path: '/resources/slug/:pendingSlug',
    target: 0,
    auth: true,
    pgTarget: 0.5,
  },
  {
    name: 'write mix: like, unlike, follow, unfollow (API keys)',
    path: '/resources/:mixResourceId/likes',
    target: 0,
    mix: [
      { method: 'POST', path: '/resources/:mixResourceId/likes' },
      { method: 'DELETE', path: '/resources/:mixResourceId/likes' },
      { method: 'POST', path: '/users/:mixUserId/follow' },
      { method: 'DELETE', path: '/users/:mixUserId/follow' },
    ],
  },
];
