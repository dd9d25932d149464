// cli seed-demo: a realistic demo catalogue (users, a team, 20 approved resources with versions and files,
// approved servers) created through the HTTP app itself, so every rule of the API applies to it.
import type { Command } from './command.js';
import { DEMO_ADMIN, DEMO_CREATORS, DEMO_RESOURCES, DEMO_SERVERS } from './demo-catalogue.js';

export const seedDemoCommand: Command = {
  name: 'seed-demo',
  summary: 'Fill an empty instance with a demo catalogue (users, a team, resources, versions, servers)',
  help: `Usage: cli seed-demo

Creates, through the API's own rules: an admin (${DEMO_ADMIN}) and three creators (${DEMO_CREATORS.join(', ')}),
a team, ${DEMO_RESOURCES.length} approved resources of every type with tags, categories and game versions, each with an
approved version and a small ZIP file, and ${DEMO_SERVERS.length} approved servers. Prints one JSON line with the demo
accounts' password and API keys. Running it again changes nothing. Meant for trying the API, not for production.`,
  options: {},
  async run({ config }) {
    await (await import('./demo-seeder.js')).seedDemo(config);
  },
};
