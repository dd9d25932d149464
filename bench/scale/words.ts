// The vocabulary of the scale benchmark's catalogue: common English words (the glue of any description),
// content words a game-content marketplace is written in, a few names with diacritics, and deterministic
// pseudo-words for the long tail a real catalogue's vocabulary has (tens of thousands of rare words).
// Order matters: the seeder draws with a Zipf distribution over these lists, so earlier words are more common.

/** Glue words: in almost every description (the `simple` text configuration and FTS5 keep them). */
export const FUNCTION_WORDS = `
the and of to a in is for with on that this it you your are be as at by from or an can will all more new not
has have its our we they their one two three each every into out up over any some only also just when which
how what where than then so if no but use make get add adds like most many much very well even other these
those such here there about after before while both through between own same may must should would could
never always now first last next best without within under around again still ever less few lots
`;

/** Content words, most used first (roughly): names, short descriptions and queries are drawn from these. */
export const CONTENT_WORDS = `
epic trees better simple ultimate tiny cozy ancient modern magic swift furniture dungeons economy backpacks
biomes tools mobs castles maps world craft build survival adventure quest quests dragon dragons sword swords
shield armor armour weapons weapon potion potions spell spells wizard wizards knight knights castle village
villages city cities tower towers forest forests mountain mountains river rivers ocean oceans island islands
desert deserts jungle jungles cave caves mine mines ore ores gold silver iron copper diamond diamonds emerald
ruby sapphire crystal crystals stone stones wood wooden oak birch pine spruce maple willow cherry bamboo
flower flowers garden gardens farm farming farms crop crops wheat corn potato carrot pumpkin melon apple
apples bread cake cheese fish fishing boat boats ship ships sail pirate pirates treasure chest chests loot
key keys door doors gate gates wall walls bridge bridges road roads path paths rail rails train trains cart
carts horse horses wolf wolves bear bears fox foxes deer rabbit rabbits bird birds owl owls eagle eagles
spider spiders zombie zombies skeleton skeletons ghost ghosts goblin goblins orc orcs elf elves dwarf dwarves
giant giants troll trolls demon demons angel angels beast beasts monster monsters boss bosses creature
creatures pet pets companion companions mount mounts dungeon arena arenas temple temples ruins ruin tomb
tombs crypt crypts fortress fortresses palace palaces house houses home homes cabin cabins hut huts tent
tents camp camps base bases bunker bunkers lab labs factory factories machine machines engine engines
gear gears pipe pipes cable cables wire wires power energy battery batteries solar wind water fire ice
lava snow rain storm storms thunder lightning weather season seasons spring summer autumn winter night day
dawn dusk sun moon star stars sky cloud clouds space planet planets rocket rockets galaxy orbit station
robot robots drone drones laser lasers portal portals dimension dimensions void nether end realm realms
kingdom kingdoms empire empires nation nations faction factions clan clans guild guilds team teams party
player players server servers multiplayer singleplayer coop pvp pve hardcore casual creative minigame
minigames parkour puzzle puzzles race racing combat battle battles war wars siege raid raids hunt hunting
trade trading shop shops market markets store stores bank banks coin coins money currency price prices
job jobs skill skills level levels rank ranks class classes perk perks talent talents ability abilities
stat stats health mana stamina hunger thirst sleep bed beds chair chairs table tables lamp lamps light
lights lantern lanterns torch torches candle candles window windows roof roofs floor floors stair stairs
ladder ladders fence fences sign signs banner banners flag flags statue statues fountain fountains well
wells barrel barrels crate crates box boxes shelf shelves bookshelf books book library scroll scrolls map
compass clock clocks bell bells music sound sounds song songs voice ambient atmosphere texture textures
pack packs resource resources model models animation animations particle particles effect effects shader
shaders color colors colour palette style styles theme themes icon icons font fonts menu menus interface
hud screen screens button buttons inventory slot slots storage sorting filter filters search recipe recipes
crafting smelting brewing enchanting enchantment enchantments anvil furnace furnaces oven kitchen food
foods drink drinks meal meals cooking cook baker bakery tavern inn hotel hospital school church chapel
museum prison jail court market plaza square park parks street streets alley tunnel tunnels sewer sewers
canal canals harbor harbour port dock docks lighthouse windmill mill mills forge smithy stable stables
barn barns silo well quarry outpost watchtower keep citadel stronghold sanctuary shrine altar obelisk
pyramid pyramids oasis canyon canyons valley valleys hill hills cliff cliffs plateau volcano volcanoes
swamp swamps marsh bog tundra taiga savanna steppe meadow meadows grove groves glade lake lakes pond ponds
waterfall waterfalls reef reefs coral beach beaches shore coast bay lagoon glacier glaciers peak peaks
ridge crater craters abyss chasm rift cavern caverns grotto den lair nest hive burrow
red blue green yellow orange purple pink black white gray grey brown golden dark bright shiny glowing
shadow shadows light big small large huge little mini mega super hyper ultra extra more less fast slow
quick easy hard heavy light strong weak old young ancient elder lost hidden secret forgotten cursed
blessed holy sacred dark evil good wild tame fierce gentle calm quiet loud silent frozen burning
molten flooded sunken floating flying hovering rolling spinning moving living dead undead haunted
enchanted mystic mystical arcane elemental celestial infernal primal feral savage royal noble common
rare legendary mythic mythical unique special classic vanilla plus advanced basic complete full lite
light tiny compact portable custom dynamic smart auto automatic manual random procedural infinite endless
realistic stylized cartoon pixel retro voxel smooth sharp clean crisp soft rough natural organic rustic
medieval victorian steampunk cyberpunk futuristic industrial nordic viking japanese chinese roman greek
egyptian aztec celtic gothic baroque colonial tropical arctic alpine coastal urban rural
immersive atmospheric cinematic dramatic peaceful relaxing challenging brutal fair balanced tuned
improved enhanced expanded extended overhauled reworked remastered refined polished optimized lightweight
performance fps lag chunk chunks render rendering loading memory cpu gpu fix fixes patch patches bug bugs
update updates version versions release releases beta alpha stable snapshot legacy compatible compatibility
support config configuration option options setting settings command commands permission permissions
admin admins moderator moderation chat message messages mail discord vote votes voting reward rewards
daily weekly event events holiday holidays halloween christmas easter festival festivals party parties
birthday wedding spawn lobby hub warp warps teleport teleporter home claim claims land lands plot plots
region regions protection grief anti cheat cheats spam log logs backup backups restore scheduler timer
timers countdown leaderboard leaderboards score scores achievement achievements badge badges title titles
nickname nicknames tag tags prefix suffix rank kit kits crate keys lottery auction auctions shopkeeper
villager villagers merchant merchants trader traders npc npcs dialogue story stories lore legend legends
chapter chapters campaign campaigns mission missions objective objectives goal goals challenge challenges
tutorial guide guides wiki help tips tricks
run running jump jumping climb climbing swim swimming fly flying glide gliding dig digging mining build
building craft crafting explore exploring exploration fight fighting defend defending attack attacking
cast casting summon summoning tame taming breed breeding grow growing plant planting harvest harvesting
collect collecting gather gathering store storing sort sell selling buy buying travel traveling
teleporting discover discovering survive surviving create creating design designing decorate decorating
decoration decorations furnish customize customizing automate automation generate generation generator
structures structure terrain landscape landscapes scenery vista vistas skyline skybox horizon
blocks block items item entity entities tile tiles brick bricks plank planks log slab slabs glass
concrete marble granite basalt obsidian sandstone clay terracotta wool carpet carpets leather cloth
silk rope chain chains nail nails bolt bolts rivet hammer hammers axe axes pickaxe pickaxes shovel
shovels hoe bow bows arrow arrows crossbow spear spears dagger daggers staff staves wand wands ring rings
amulet amulets necklace charm charms gem gems jewel jewels rune runes relic relics artifact artifacts
totem totems orb orbs tome tomes grimoire cauldron elixir elixirs herb herbs mushroom mushrooms seed
seeds root roots leaf leaves vine vines moss fern ferns cactus reed reeds lily lotus rose roses tulip
daisy sunflower lavender ivy hedge hedges bush bushes shrub shrubs log stump
alchemy botany biology chemistry physics engineering electricity redstone circuit circuits logic
computer computers terminal terminals network networks internet radio antenna satellite reactor reactors
nuclear fusion steam coal oil gas fuel refinery pump pumps tank tanks conveyor conveyors belt belts
elevator elevators crane cranes vehicle vehicles car cars truck trucks bus plane planes helicopter jet
jets submarine submarines tank mech mechs armored turret turrets cannon cannons gun guns rifle pistol
ammo bullet bullets bomb bombs explosive explosives dynamite tnt mine trap traps spike spikes
fairy fairies pixie sprite nymph mermaid mermaids siren kraken leviathan serpent serpents hydra
phoenix griffin unicorn pegasus minotaur golem golems wraith lich vampire vampires werewolf werewolves
witch witches warlock necromancer shaman druid druids ranger rangers paladin rogue rogues assassin
archer archers mage mages cleric monk monks bard bards hunter hunters warrior warriors samurai ninja
ninjas viking vikings pirate knight king kings queen queens prince princess lord lords lady duke baron
emperor chief hero heroes villain villains champion champions legend guardian guardians sentinel
warden keeper watcher seeker wanderer traveler explorer builder builders miner miners farmer farmers
smith blacksmith carpenter mason tailor fisher fisherman sailor captain soldier soldiers guard guards
army armies legion troops squad squads
north south east west northern southern eastern western central upper lower inner outer deep high
first second third final last early late prime alpha omega zero infinity
friendly community beginner beginners veteran pro expert casual family kids fun cute funny silly
awesome amazing cool nice great beautiful pretty lovely charming elegant fancy luxury premium
`;

/** Name words with diacritics (a few per hundred names use one, so folding is exercised). */
export const DIACRITIC_WORDS = `
Café Über Naïve Façade Résumé Crème Piñata Jalapeño Señor Fiancé Déjà Smörgåsbord Ångström Zoë Brûlée
Château Mañana Ragnarök Björn Æther Fjörd Élan Rêve Forêt Île Cœur Straße Öl Göta Märchen Schloß Ñandú
Ação Coração São Niño Año Kötü Şehir Łódź Kraków Dvořák Škoda Příběh Dragón Mágico Ciudad Héroe Leyenda
`;

export const split = (text: string): string[] => text.split(/\s+/).filter((word) => word !== '');

/**
 * Deterministic pseudo-words (consonant-vowel syllables), the rare tail of the vocabulary: each is unlikely to
 * be in many descriptions, like the proper nouns and jargon of a real catalogue.
 */
export function pseudoWords(count: number, random: () => number): string[] {
  const onsets = [
    'b',
    'br',
    'c',
    'ch',
    'd',
    'dr',
    'f',
    'g',
    'gr',
    'h',
    'k',
    'kr',
    'l',
    'm',
    'n',
    'p',
    'qu',
    'r',
  ];
  const more = ['s', 'sh', 'sk', 'st', 't', 'th', 'tr', 'v', 'w', 'z', 'x', 'y'];
  const starts = [...onsets, ...more];
  const vowels = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'ou', 'y', 'ae'];
  const codas = ['', '', '', 'n', 'r', 'l', 's', 'th', 'x', 'k', 'm', 'nd', 'rn'];
  const out = new Set<string>();
  while (out.size < count) {
    const syllables = 2 + Math.floor(random() * 2);
    let word = '';
    for (let i = 0; i < syllables; i++) {
      word += starts[Math.floor(random() * starts.length)]!;
      word += vowels[Math.floor(random() * vowels.length)]!;
    }
    word += codas[Math.floor(random() * codas.length)]!;
    out.add(word);
  }
  return [...out];
}
