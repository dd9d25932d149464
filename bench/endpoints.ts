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
}

export const ENDPOINTS: BenchEndpoint[] = [
  { name: 'GET /users/:userId (public profile)', path: '/users/:userId', target: 0.4 },
  { name: 'GET /users/username/:username', path: '/users/username/:username', target: 0.4 },
  { name: 'GET /health', path: '/health', target: 0 },
  { name: 'GET /resources/slug/:slug', path: '/resources/slug/:resourceSlug', target: 0.4 },
  { name: 'GET /resources (default sort, 20 items)', path: '/resources', target: 0.2 },
  { name: 'GET /servers (default sort, 20 items)', path: '/servers', target: 0.2 },
  { name: 'GET /servers/slug/:slug', path: '/servers/slug/:serverSlug', target: 0 },
  {
    name: 'GET …/versions/:versionId/download/:fileId (302)',
    path: '/resources/:resourceId/versions/:versionId/download/:fileId',
    target: 0.3,
    status: 302,
  },
];
