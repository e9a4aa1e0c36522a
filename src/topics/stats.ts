/**
 * The few tests the topic statistics need, exact rather than approximated by a normal curve, because
 * the counts that matter are small (five reviews in a day, three in a week).
 */

const LANCZOS = [
  676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
  -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0 (Lanczos, g = 7): about 15 significant digits. */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let sum = 0.99999999999980993;
  for (const [i, c] of LANCZOS.entries()) sum += c / (z + i + 1);
  const t = z + LANCZOS.length - 0.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

function logChoose(n: number, k: number): number {
  return logGamma(n + 1) - logGamma(k + 1) - logGamma(n - k + 1);
}

/** Sums exp(terms) without underflow, the largest first. */
function sumExp(logs: number[]): number {
  if (logs.length === 0) return 0;
  const max = Math.max(...logs);
  if (max === Number.NEGATIVE_INFINITY) return 0;
  return Math.exp(max) * logs.reduce((s, l) => s + Math.exp(l - max), 0);
}

function binomialLogPmf(k: number, n: number, p: number): number {
  if (p <= 0) return k === 0 ? 0 : Number.NEGATIVE_INFINITY;
  if (p >= 1) return k === n ? 0 : Number.NEGATIVE_INFINITY;
  return logChoose(n, k) + k * Math.log(p) + (n - k) * Math.log1p(-p);
}

/** P(X >= k) for X ~ Binomial(n, p). */
export function binomialUpperTail(k: number, n: number, p: number): number {
  if (k <= 0) return 1;
  if (k > n) return 0;
  const logs: number[] = [];
  for (let i = k; i <= n; i += 1) logs.push(binomialLogPmf(i, n, p));
  return Math.min(1, sumExp(logs));
}

/** P(X <= k) for X ~ Binomial(n, p). */
export function binomialLowerTail(k: number, n: number, p: number): number {
  if (k < 0) return 0;
  if (k >= n) return 1;
  const logs: number[] = [];
  for (let i = 0; i <= k; i += 1) logs.push(binomialLogPmf(i, n, p));
  return Math.min(1, sumExp(logs));
}

/** P(X >= k) for X ~ Poisson(lambda): 1 minus the lower terms, summed in log space. */
export function poissonUpperTail(k: number, lambda: number): number {
  if (k <= 0) return 1;
  if (lambda <= 0) return 0;
  const logs: number[] = [];
  for (let i = 0; i < k; i += 1) logs.push(-lambda + i * Math.log(lambda) - logGamma(i + 1));
  const lower = sumExp(logs);
  if (lower < 0.999) return Math.max(0, 1 - lower);
  // The complement loses precision when the tail is tiny: sum the tail itself instead.
  const tail: number[] = [];
  for (let i = k; i < k + 200 + 10 * Math.sqrt(lambda); i += 1) {
    tail.push(-lambda + i * Math.log(lambda) - logGamma(i + 1));
  }
  return Math.min(1, sumExp(tail));
}

function xLogX(x: number): number {
  return x > 0 ? x * Math.log(x) : 0;
}

/**
 * Dunning's log-likelihood ratio G² of a 2×2 table: `a` of `n1` documents here have the phrase, `c`
 * of `n2` there. Above 10.83 the difference is significant at p < 0.001 (χ², one degree of freedom).
 */
export function logLikelihoodG2(a: number, n1: number, c: number, n2: number): number {
  const b = n1 - a;
  const d = n2 - c;
  const n = n1 + n2;
  const g =
    xLogX(a) +
    xLogX(b) +
    xLogX(c) +
    xLogX(d) +
    xLogX(n) -
    xLogX(a + b) -
    xLogX(c + d) -
    xLogX(a + c) -
    xLogX(b + d);
  return Math.max(0, 2 * g);
}
