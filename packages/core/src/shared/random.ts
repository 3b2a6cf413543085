/** A source of randomness for handler contexts; simulations pass a seeded one. */
export type Random = () => number;

/** A small seeded PRNG (mulberry32): the same seed gives the same sequence everywhere. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A version-4 UUID drawn from `random`. */
export function uuidFrom(random: Random): string {
  const hex: string[] = [];
  for (let i = 0; i < 16; i++) {
    let byte = Math.floor(random() * 256);
    if (i === 6) byte = (byte & 0x0f) | 0x40;
    if (i === 8) byte = (byte & 0x3f) | 0x80;
    hex.push(byte.toString(16).padStart(2, '0'));
  }
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const LIFE_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
/** Characters of a life id: 36^12, about 62 bits. */
const LIFE_LENGTH = 12;

/** Random bytes drawn ahead, enough for this many life ids: one call to the source, not one each. */
const POOLED_LIVES = 256;
const pool = new Uint8Array(LIFE_LENGTH * POOLED_LIVES);
let pooled = pool.length;

/**
 * A new id for an actor's life (`ActorRecord.life`): 12 characters of `[0-9a-z]`, drawn
 * from `random` when given (a simulation's seeded one), else from the platform's
 * cryptographic source, so two lives of one actor never share one.
 *
 * @example
 * lifeId(); // e.g. 'k3j9x2m1qa0z'
 */
export function lifeId(random?: Random): string {
  let id = '';
  for (let i = 0; i < LIFE_LENGTH; i++) {
    const byte = random ? Math.floor(random() * 256) : pooledByte();
    id += LIFE_ALPHABET[byte % LIFE_ALPHABET.length];
  }
  return id;
}

/** The next of the random bytes drawn ahead, drawing more when they run out. */
function pooledByte(): number {
  if (pooled === pool.length) {
    globalThis.crypto.getRandomValues(pool);
    pooled = 0;
  }
  return pool[pooled++]!;
}
