// The demo catalogue `cli seed-demo` creates: made-up but realistic names, one entry per line.
export interface DemoResource {
  name: string;
  type: 'MOD' | 'PLUGIN' | 'ASSET_PACK' | 'DATA_PACK' | 'WORLD' | 'PREFAB' | 'MODPACK' | 'PREMADE_SERVER';
  summary: string;
  /** Index into the demo creators; team-owned when 'team'. */
  owner: 0 | 1 | 2 | 'team';
}

export const DEMO_CREATORS = ['demo_alice', 'demo_bob', 'demo_carol'] as const;
export const DEMO_ADMIN = 'demo_admin';
export const DEMO_TEAM = {
  name: 'Demo Blocksmiths',
  slug: 'demo-blocksmiths',
  description: 'A made-up studio',
};

export const DEMO_RESOURCES: DemoResource[] = [
  {
    name: 'Better Torches',
    type: 'MOD',
    summary: 'Torches that burn out, flicker and cast coloured light',
    owner: 0,
  },
  {
    name: 'Trail Markers',
    type: 'MOD',
    summary: 'Place signposts that show on the map and the compass',
    owner: 1,
  },
  { name: 'Stackable Potions', type: 'MOD', summary: 'Potions stack to 16 and brew in batches', owner: 2 },
  { name: 'Quiet Nights', type: 'MOD', summary: 'Fewer hostile spawns near lit villages', owner: 'team' },
  {
    name: 'Land Claims',
    type: 'PLUGIN',
    summary: 'Claim land with a golden shovel; trust friends',
    owner: 1,
  },
  { name: 'Shop Signs', type: 'PLUGIN', summary: 'Chest shops with signs, taxes and a sales log', owner: 0 },
  {
    name: 'Daily Rewards',
    type: 'PLUGIN',
    summary: 'A reward calendar players open once a day',
    owner: 'team',
  },
  {
    name: 'Autumn Textures',
    type: 'ASSET_PACK',
    summary: 'Warm autumn leaves, grass and skies at 32x',
    owner: 2,
  },
  { name: 'Crisp UI', type: 'ASSET_PACK', summary: 'A sharper, higher-contrast interface', owner: 0 },
  {
    name: 'Villager Trades Plus',
    type: 'DATA_PACK',
    summary: 'Rebalanced trades with new professions',
    owner: 1,
  },
  { name: 'Custom Advancements', type: 'DATA_PACK', summary: '40 new advancements for builders', owner: 2 },
  {
    name: 'Skyblock Classic',
    type: 'WORLD',
    summary: 'The original one-tree island, with challenges',
    owner: 'team',
  },
  { name: 'Harbour Town', type: 'WORLD', summary: 'A hand-built port city to explore', owner: 0 },
  { name: 'Medieval House Kit', type: 'PREFAB', summary: '12 timber houses ready to paste', owner: 2 },
  { name: 'Modern Bridges', type: 'PREFAB', summary: 'Suspension and arch bridges in three sizes', owner: 1 },
  {
    name: 'Explorer Pack',
    type: 'MODPACK',
    summary: 'Lightweight exploration modpack for friends',
    owner: 'team',
  },
  { name: 'Tech Tinkerers', type: 'MODPACK', summary: 'Machines, pipes and power for 4-8 players', owner: 0 },
  {
    name: 'Survival Starter Server',
    type: 'PREMADE_SERVER',
    summary: 'Configured survival server, ready to run',
    owner: 1,
  },
  {
    name: 'Minigame Lobby',
    type: 'PREMADE_SERVER',
    summary: 'A lobby with parkour and three minigames',
    owner: 2,
  },
  {
    name: 'Creative Plots',
    type: 'PREMADE_SERVER',
    summary: 'Plot world with WorldEdit limits preset',
    owner: 'team',
  },
];

export const DEMO_SERVERS = [
  { name: 'Emerald Valley SMP', ip: 'play.emerald-valley.example', summary: 'Friendly long-term survival' },
  { name: 'Pixel Arcade', ip: 'mc.pixel-arcade.example', summary: 'Minigames every evening' },
  { name: 'Redstone Lab', ip: 'lab.redstone.example', summary: 'Creative server for redstone engineers' },
  { name: 'Frontier Towns', ip: 'frontier.example', summary: 'Towns, nations and a player economy' },
];
