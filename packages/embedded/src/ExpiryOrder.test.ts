import { describe, expect, it } from 'vitest';
import { ExpiryOrder } from './ExpiryOrder.ts';
import { seededRandom } from './fixtures/seededRandom.ts';

interface Item {
  readonly id: number;
  readonly at: number;
}

function setup() {
  const live = new Map<number, Item>();
  const order = new ExpiryOrder<Item>(
    (item) => item.at,
    (item) => live.get(item.id) === item,
  );
  let ids = 0;
  const add = (at: number) => {
    const item = { id: ++ids, at };
    live.set(item.id, item);
    order.push(item, live.size);
    return item;
  };
  return { live, order, add };
}

describe('ExpiryOrder', () => {
  it('finds the live items added by a cutoff, oldest first, as a filter of all items would', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const random = seededRandom(seed);
      const { live, order, add } = setup();
      let now = 0;
      for (let step = 0; step < 5_000; step++) {
        now += random(3);
        const roll = random(10);
        if (roll < 5) add(now);
        else if (roll < 8 && live.size > 0) {
          const ids = [...live.keys()];
          live.delete(ids[random(ids.length)]!);
        } else {
          const cutoff = now - random(50);
          const expected = [...live.values()].filter((item) => item.at <= cutoff);
          expect(order.addedBy(cutoff)).toEqual(expected);
          // The caller drops some of them, as a journal write would; the others stay found.
          for (const item of expected) if (random(2) === 0) live.delete(item.id);
        }
      }
    }
  });

  it('holds no more than twice the live items (and a margin) behind an old item that stays', () => {
    const { live, order, add } = setup();
    const old = add(0);
    for (let i = 1; i <= 100_000; i++) live.delete(add(i).id);
    expect(order.held).toBeLessThanOrEqual(2 * live.size + 1_025);
    expect(order.addedBy(100_000)).toEqual([old]);
    live.delete(old.id);
    expect(order.addedBy(100_000)).toEqual([]);
    expect(order.held).toBe(0);
  });
});
