/**
 * What topics add to storing a poll's new reviews, in machine instructions (which a busy machine does not
 * change as it changes times): `--polls` polls of five simulated reviews each, over 1,000 apps, each
 * stored as the poll's write stores them (`reviewRowOf`, `insertNewReviews` in a transaction), under the
 * built-in topics (`--topics on`) or none (`off`). No network, queue or alerts: the poll cycle's other
 * costs are bench/poll.ts's. Run under callgrind at two poll counts and divide the difference by the
 * reviews stored between (bench/README.md, "Stored topics"); the bundle must sit two levels under the
 * project, where the store finds drizzle/:
 *
 *   npx esbuild bench/topics-ingest.ts --bundle --platform=node --format=esm --packages=external \
 *     --outfile=src/store/ingest.mjs
 *   valgrind --tool=callgrind --callgrind-out-file=/dev/null node --single-threaded --predictable \
 *     src/store/ingest.mjs --polls 400 --topics on      # then --polls 2000: (Ir difference) / 8,000
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { identify } from '../src/catalog/review.js';
import { reviewSchema } from '../src/catalog/schemas.js';
import { makeReview } from '../src/simulator/data.js';
import { Rng } from '../src/simulator/random.js';
import { openStore } from '../src/store/db.js';
import { reviewRowOf } from '../src/store/review-fields.js';
import { insertNewReviews } from '../src/store/reviews.js';
import { BUILT_IN_TAXONOMY, compileTaxonomy } from '../src/topics/index.js';
import { writeApps } from './synthetic-store.js';

const { values } = parseArgs({
  options: { polls: { type: 'string', default: '2000' }, topics: { type: 'string', default: 'on' } },
});
const APPS = 1000;
const taxonomy = values.topics === 'off' ? compileTaxonomy([]) : BUILT_IN_TAXONOMY;
const dir = mkdtempSync(join(tmpdir(), 'reviewwatch-ingest-'));
const store = openStore(join(dir, 'bench.db'));
try {
  writeApps(store, APPS, Date.UTC(2026, 10, 1));
  const rng = new Rng(42);
  let id = 0;
  const started = performance.now();
  for (let poll = 0; poll < Number(values.polls); poll++) {
    const handle = `app-${poll % APPS}`;
    const at = new Date(Date.UTC(2026, 10, 20) + poll * 1000);
    const rows = Array.from({ length: 5 }, () => {
      id += 1;
      const dayMs = Date.UTC(2026, 10, 1 + (poll % 20));
      const wire = makeReview(rng, { handle, title: 'App' }, { dayMs, id: String(id), rating: 1 + (id % 5) });
      // As the poll reads it: parsed from the wire, given its identity.
      const fetched = identify(reviewSchema.parse(wire));
      return reviewRowOf(handle, fetched, {
        taxonomy,
        pollRunId: (poll % APPS) + 1,
        at,
        fromBaseline: false,
      });
    });
    store.db.$client.transaction(() => insertNewReviews(store.db, rows))();
  }
  const ms = performance.now() - started;
  console.log(`${id} reviews stored, topics ${values.topics}: ${((ms * 1000) / id).toFixed(1)} µs a review`);
} finally {
  store.close();
  rmSync(dir, { recursive: true, force: true });
}
