/** "1 find", "2 finds": a count with its noun, singular for exactly one. `many` when the plural is not noun + "s". */
export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
