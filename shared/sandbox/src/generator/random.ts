import { Faker, base, fr, nl, nl_BE } from "@faker-js/faker";
import type { LocaleDefinition } from "@faker-js/faker";

/**
 * One deterministic random source per generated stream. Every draw goes through a seeded Faker
 * (Mersenne Twister), never Math.random or the clock, so a seed fixes the output byte for byte for
 * a given @faker-js/faker version. Separate streams (practices, vacancies) keep one table's data
 * stable when another table's generator changes.
 */
export type Random = {
  /** Flemish names and streets. */
  readonly flemish: Faker;
  /** French names and streets (Wallonia, Brussels). */
  readonly french: Faker;
  /** Names from the Netherlands. */
  readonly dutch: Faker;
  /** A float in [0, 1). */
  next(): number;
  /** true with probability p. */
  chance(p: number): boolean;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  /** Picks by weight: `[[weight, value], ...]`. */
  weighted<T>(entries: ReadonlyArray<readonly [number, T]>): T;
  /** `count` distinct items in random order. */
  sample<T>(items: readonly T[], count: number): T[];
  /** A random version-4-shaped UUID (lower case, 36 characters). */
  uuid(): string;
};

const STREAMS = { practices: 1, vacancies: 2 } as const;
export type Stream = keyof typeof STREAMS;

function seeded(locale: LocaleDefinition[], seed: number): Faker {
  const faker = new Faker({ locale });
  faker.seed(seed);
  return faker;
}

export function createRandom(seed: number, stream: Stream): Random {
  const root = seed * 16 + STREAMS[stream] * 4;
  const core = seeded([base], root);
  // float() with no bounds is the randomizer's uniform draw in [0, 1).
  const next = (): number => core.number.float();
  const random: Random = {
    flemish: seeded([nl_BE, nl, base], root + 1),
    french: seeded([fr, base], root + 2),
    dutch: seeded([nl, base], root + 3),
    next,
    chance: (p) => next() < p,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)] as (typeof items)[number],
    weighted: (entries) => {
      const total = entries.reduce((sum, [w]) => sum + w, 0);
      let roll = next() * total;
      for (const [weight, value] of entries) {
        roll -= weight;
        if (roll < 0) return value;
      }
      return (entries[entries.length - 1] as readonly [number, (typeof entries)[number][1]])[1];
    },
    sample: (items, count) => core.helpers.arrayElements([...items], Math.min(count, items.length)),
    uuid: () => core.string.uuid(),
  };
  return random;
}
