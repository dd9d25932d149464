// RANK_WEIGHT_*: the rank's weights, in the config tests' style (test/platform/config.test.ts).
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { rankFormula } from '../../../src/modules/servers/rank/rank.formula.js';

const baseEnv = (extra: Record<string, string> = {}) => ({
  DATA_DIR: '/tmp/marketplace-rank-config',
  SECRET: 'test-secret-test-secret-test-secret-0123456789',
  ...extra,
});

describe('loadConfig: the rank weights', () => {
  it('default to the documented 0.5, 2, 30 and 1/3', () => {
    expect(loadConfig(baseEnv()).rank.weights).toEqual({ votes: 0.5, players: 2, uptime: 30, age: 1 / 3 });
  });

  it('read decimals and fractions', () => {
    const config = loadConfig(
      baseEnv({
        RANK_WEIGHT_VOTES: '1.25',
        RANK_WEIGHT_PLAYERS: '0',
        RANK_WEIGHT_UPTIME: ' 12 ',
        RANK_WEIGHT_AGE: '1/6',
      }),
    );
    expect(config.rank.weights).toEqual({ votes: 1.25, players: 0, uptime: 12, age: 1 / 6 });
    expect(rankFormula(config.rank.weights)).toBe(
      'score = 1.25·votes30d + 0·averagePlayers7d + 12·uptime7d + 1/6·min(daysListed, 30); ties go to the older listing',
    );
  });

  it.each([
    ['RANK_WEIGHT_VOTES', '-1'],
    ['RANK_WEIGHT_PLAYERS', 'abc'],
    ['RANK_WEIGHT_UPTIME', '1e3'],
    ['RANK_WEIGHT_AGE', '1/0'],
    ['RANK_WEIGHT_AGE', '0/0'],
    ['RANK_WEIGHT_VOTES', '2000000'],
  ])('refuse %s=%s with a ConfigError naming the variable', (name, value) => {
    expect(() => loadConfig(baseEnv({ [name]: value }))).toThrow(ConfigError);
    expect(() => loadConfig(baseEnv({ [name]: value }))).toThrow(name);
  });
});
