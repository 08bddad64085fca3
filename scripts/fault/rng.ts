// A seeded generator (mulberry32): the same --seed replays the same run.

export class Rng {
  private state: number;

  readonly seed: number;

  constructor(seed: number) {
    this.seed = seed;
    this.state = seed >>> 0;
  }

  /** a float in [0, 1) */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** an integer in [min, max] */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(0, items.length - 1)]!;
  }

  /** a random-looking lowercase identifier */
  word(len = 8): string {
    let s = '';
    for (let i = 0; i < len; i++) s += 'abcdefghijklmnopqrstuvwxyz0123456789'[this.int(0, 35)];
    return s;
  }

  digits(len: number): string {
    let s = String(this.int(1, 9));
    while (s.length < len) s += String(this.int(0, 9));
    return s;
  }

  uuid(): string {
    const h = () => this.int(0, 15).toString(16);
    const part = (n: number) => Array.from({ length: n }, h).join('');
    return `${part(8)}-${part(4)}-4${part(3)}-${'89ab'[this.int(0, 3)]}${part(3)}-${part(12)}`;
  }

  /** money with at most 2 decimals in [min, max] */
  money(min: number, max: number): number {
    return this.int(Math.round(min * 100), Math.round(max * 100)) / 100;
  }
}

/** a seed from the clock, for runs that were not given one */
export const freshSeed = () => Date.now() % 2147483647;
