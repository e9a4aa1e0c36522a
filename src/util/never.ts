/**
 * The default of a switch that must cover every case: `value` is `never` when it does, so a case left out
 * (a new alert kind, a new channel type) is a compile error here rather than `undefined` at run time.
 */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}
