// The work behind `cli seed-demo` (loaded only when it runs): a realistic demo catalogue (users, a team, 20 approved resources with versions and files,
// approved servers) created through the HTTP app itself, so every rule of the API applies to it.
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import yazl from 'yazl';
import type { App } from '../app.js';
import type { Role } from '../core/db/schema.js';
import { createApiKeysService } from '../modules/api-keys/api-keys.service.js';
import { createAccount } from '../modules/auth/accounts.js';
import { findUserByLogin } from '../modules/users/users.repo.js';
import type { Config } from '../config.js';
import { printResult, progress, withApp } from './command.js';
import { DEMO_ADMIN, DEMO_CREATORS, DEMO_RESOURCES, DEMO_SERVERS, DEMO_TEAM } from './demo-catalogue.js';

interface Catalog {
  id: string;
  slug?: string;
  resourceType?: string;
}

const slugOf = (name: string) =>
  `demo-${name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/-$/, '')}`;

/** Calls the API as `apiKey`; anything but 2xx stops the seed with the API's own message. */
function caller(app: App) {
  return async <T>(
    method: string,
    url: string,
    apiKey: string | undefined,
    payload?: unknown,
  ): Promise<T> => {
    const form = payload instanceof FormData ? new Response(payload) : undefined;
    const response = await app.inject({
      method: method as 'GET',
      url,
      headers: {
        ...(apiKey === undefined ? {} : { 'x-api-key': apiKey }),
        ...(form === undefined ? {} : { 'content-type': form.headers.get('content-type')! }),
      },
      ...(form !== undefined
        ? { payload: Buffer.from(await form.arrayBuffer()) }
        : payload === undefined
          ? {}
          : { payload: payload as Record<string, unknown> }),
    });
    if (response.statusCode >= 300)
      throw new Error(`${method} ${url} answered ${response.statusCode}: ${response.body}`);
    return (response.body === '' ? undefined : response.json()) as T;
  };
}

/** A small real ZIP, as a mod or world download would be. */
async function demoArchive(name: string, version: string): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  zip.addBuffer(
    Buffer.from(`# ${name} ${version}\n\nDemo content created by \`cli seed-demo\`.\n`),
    'README.md',
  );
  zip.addBuffer(Buffer.from(JSON.stringify({ name, version }, null, 2)), 'manifest.json');
  zip.end();
  const chunks: Buffer[] = [];
  const sink = zip.outputStream.pipe(new PassThrough());
  for await (const chunk of sink) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Creates the demo catalogue through the app, or reports that it is there already. */
export async function seedDemo(config: Config): Promise<void> {
  await withApp(config, async (app) => {
    const { db, dialect } = app.context.database;
    const clock = app.context.clock;
    if ((await findUserByLogin(db, DEMO_ADMIN)) !== undefined) {
      progress(`The demo catalogue is already there (${DEMO_ADMIN} exists); nothing to do.`);
      printResult({ seeded: false });
      return;
    }
    const call = caller(app);
    const password = randomBytes(9).toString('base64url');
    const keys = createApiKeysService({ db, dialect, clock });
    const accounts: Record<string, string> = {};
    const people: [string, Role][] = [
      [DEMO_ADMIN, 'ADMIN'],
      ...DEMO_CREATORS.map((name): [string, Role] => [name, 'USER']),
    ];
    for (const [username, role] of people) {
      const user = await createAccount(db, clock, {
        username,
        email: `${username}@example.com`,
        password,
        role,
      });
      accounts[username] = (await keys.create(user.id, { name: 'demo' })).key;
    }
    const admin = accounts[DEMO_ADMIN]!;
    const creators = DEMO_CREATORS.map((name) => accounts[name]!);
    progress(`Accounts: ${Object.keys(accounts).join(', ')}`);

    const team = await call<{ id: string }>('POST', '/teams', creators[0], DEMO_TEAM);
    const [{ categories }, { tags }, { gameVersions }] = await Promise.all([
      call<{ categories: Catalog[] }>('GET', '/resources/categories', undefined),
      call<{ tags: Catalog[] }>('GET', '/resource-tags?limit=100', undefined),
      call<{ gameVersions: Catalog[] }>('GET', '/game-versions', undefined),
    ]);
    const newest = gameVersions.slice(0, 3).map((version) => version.id);

    for (const [index, demo] of DEMO_RESOURCES.entries()) {
      const ownerKey = demo.owner === 'team' ? creators[0]! : creators[demo.owner]!;
      const resource = await call<{ id: string }>('POST', '/resources', ownerKey, {
        name: demo.name,
        slug: slugOf(demo.name),
        shortDescription: demo.summary,
        description: `## ${demo.name}\n\n${demo.summary}.\n\nDemo content created by \`cli seed-demo\`.`,
        type: demo.type,
        categoryIds: categories
          .filter((category) => category.resourceType === demo.type)
          .slice(0, 1)
          .map((c) => c.id),
        tagIds: [tags[index % tags.length], tags[(index + 3) % tags.length]]
          .flatMap((tag) => (tag === undefined ? [] : [tag.id]))
          .filter((id, position, all) => all.indexOf(id) === position),
        gameVersionIds: newest,
        ...(demo.owner === 'team' ? { ownerType: 'TEAM', ownerId: team.id } : {}),
      });
      await call('PATCH', `/resources/moderation/${resource.id}/moderate`, admin, { action: 'APPROVE' });
      const versions = `/resources/${resource.id}/versions`;
      const version = await call<{ id: string }>('POST', versions, ownerKey, {
        versionNumber: '1.0.0',
        channel: 'RELEASE',
        compatibleGameVersionIds: newest,
        changelog: '<p>First release.</p>',
      });
      const form = new FormData();
      const archive = await demoArchive(demo.name, '1.0.0');
      form.append('file', new Blob([archive], { type: 'application/zip' }), `${slugOf(demo.name)}-1.0.0.zip`);
      await call('POST', `${versions}/${version.id}/files`, ownerKey, form);
      await call('POST', `${versions}/${version.id}/submit`, ownerKey);
      await call('POST', `${versions}/${version.id}/approve`, admin);
      progress(`Resources: ${index + 1}/${DEMO_RESOURCES.length} (${demo.name})`);
    }

    const [{ tags: serverTags }, { categories: serverCategories }] = await Promise.all([
      call<{ tags: Catalog[] }>('GET', '/server-tags', undefined),
      call<{ categories: Catalog[] }>('GET', '/server-categories', undefined),
    ]);
    for (const [index, demo] of DEMO_SERVERS.entries()) {
      const server = await call<{ id: string }>('POST', '/servers', creators[index % creators.length], {
        name: demo.name,
        slug: slugOf(demo.name),
        shortDescription: demo.summary,
        ip: demo.ip,
        tagIds: serverTags.slice(index, index + 2).map((tag) => tag.id),
        categoryIds: serverCategories
          .slice(index % Math.max(serverCategories.length, 1), index + 1)
          .map((c) => c.id),
      });
      await call('POST', `/servers/moderation/${server.id}/approve`, admin, {});
      progress(`Servers: ${index + 1}/${DEMO_SERVERS.length} (${demo.name})`);
    }
    printResult({
      seeded: true,
      resources: DEMO_RESOURCES.length,
      servers: DEMO_SERVERS.length,
      password,
      apiKeys: accounts,
    });
  });
}
