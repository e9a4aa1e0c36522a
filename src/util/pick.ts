/** The fields of `row` that `keys` names, in that order: a copy that carries nothing else of it. */
export function pick<T, const K extends keyof T>(row: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const key of keys) out[key] = row[key];
  return out;
}
