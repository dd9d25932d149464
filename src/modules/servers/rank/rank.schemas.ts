import { Type } from 'typebox';
import { Nullable, Timestamp, named, ref } from '../../../core/http/schemas.js';

const Weights = named(
  'ServerRankWeights',
  Type.Object(
    {
      votes: Type.Number({ minimum: 0, description: 'Per vote in the last 30 days (RANK_WEIGHT_VOTES)' }),
      players: Type.Number({ minimum: 0, description: 'Per average online player (RANK_WEIGHT_PLAYERS)' }),
      uptime: Type.Number({ minimum: 0, description: 'Times the uptime share 0..1 (RANK_WEIGHT_UPTIME)' }),
      age: Type.Number({ minimum: 0, description: 'Per day listed, up to 30 days (RANK_WEIGHT_AGE)' }),
    },
    { description: 'The weights this deployment uses' },
  ),
);

export const ServerRank = Type.Object({
  rank: Nullable(
    Type.Integer({
      minimum: 1,
      description: '1-based position among APPROVED servers; null when the server is not APPROVED',
    }),
  ),
  score: Type.Number({
    description: 'As last computed: the weighted sum of the components (see formula)',
  }),
  components: Type.Object({
    votes30d: Type.Integer({ minimum: 0, description: 'Votes in the 30 days before computedAt' }),
    averagePlayers7d: Type.Number({
      minimum: 0,
      description:
        'Average online players over the 168 complete hours before computedAt (0 for missing minutes)',
    }),
    uptime7d: Type.Number({ minimum: 0, maximum: 1, description: 'Share of those minutes online' }),
    daysListed: Type.Number({
      minimum: 0,
      description:
        'Days from the first approval to computedAt (the score counts at most 30); 0 if never listed',
    }),
  }),
  weights: ref(Weights),
  formula: Type.String({ description: 'The formula with these weights, human-readable' }),
  computedAt: Nullable(Timestamp),
  listedAt: Nullable(Timestamp),
});
