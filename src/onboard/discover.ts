/**
 * What `reviewwatch init` finds out before it writes a config: the apps of a developer (endpoint 4) or
 * the handles given (checked against endpoint 7), each app's categories from its listing (endpoint 3,
 * checked against endpoint 5), and in each category the apps ranked nearest to yours (endpoint 2). It
 * reads through a `CatalogReader` and reports progress through a callback, and so runs against any API
 * that answers like docs/catalog-api.md says: the real one or the simulator.
 */
import {
  type AppDetail,
  type CatalogClient,
  CatalogNotFoundError,
  type CategoryEntry,
  handleFromUrl,
  isValidHandle,
} from '../catalog/index.js';
import { ExitCode, ReviewwatchError } from '../errors.js';
import { closestHandles } from './closest.js';

/** The endpoints discovery reads; a CatalogClient is one. */
export type CatalogReader = Pick<
  CatalogClient,
  'developer' | 'developers' | 'app' | 'apps' | 'category' | 'categories'
>;

export interface DiscoverRequest {
  developer?: string | undefined;
  /** Handles of own apps given one by one (`--app`), beside or instead of a developer's. */
  apps: readonly string[];
  /** Competitors suggested per category; default 3. */
  perCategory?: number;
  /** How deep a category is searched for your apps: pages of 24; default 5. */
  searchPages?: number;
}

export interface OwnApp {
  handle: string;
  /** As the listing names it: untrusted text. */
  name: string;
  /** Category handles, as the listing names them and endpoint 5 knows them. */
  categories: string[];
}

export interface FoundCategory {
  handle: string;
  name: string;
  /** Your apps in it and their organic rank (ads apart); null: not within the pages searched. */
  ranks: Array<{ handle: string; rank: number | null }>;
  /** Pages the market watch should snapshot so that your apps' ranks are tracked (config `pages`). */
  pages: number;
}

export interface Competitor {
  handle: string;
  name: string;
  category: string;
  rank: number;
  /** The own app it is ranked nearest to, with that app's rank; null when none was found in the pages read. */
  near: { handle: string; rank: number } | null;
}

export interface Discovery {
  developer: { handle: string; name: string } | null;
  own: OwnApp[];
  categories: FoundCategory[];
  competitors: Competitor[];
  /** Things a person should know: apps skipped, categories not found, ranks beyond the pages read. */
  notes: string[];
}

/** A handle the marketplace does not know, with the closest ones it does. Exit code 2. */
export class UnknownHandleError extends ReviewwatchError {
  readonly kind: 'developer' | 'app';
  readonly unknown: ReadonlyArray<{ handle: string; closest: string[] }>;
  constructor(kind: 'developer' | 'app', unknown: ReadonlyArray<{ handle: string; closest: string[] }>) {
    const where =
      kind === 'developer'
        ? "A developer's handle is the last part of its page's URL."
        : "An app's handle is the last part of its listing's URL.";
    const guess = (closest: readonly string[]) =>
      closest.length === 0 ? 'no listed handle is close to it' : `did you mean ${orList(closest)}?`;
    const [only] = unknown;
    const message =
      unknown.length === 1 && only !== undefined
        ? `"${only.handle}" is not ${kind === 'developer' ? 'a developer' : 'an app'} in the marketplace: ${guess(only.closest)} ${where}`
        : `${unknown.length} ${kind}s are not in the marketplace: ${unknown.map((u) => `"${u.handle}" (${guess(u.closest)})`).join('; ')}. ${where}`;
    super(message, { exitCode: ExitCode.Usage });
    this.kind = kind;
    this.unknown = unknown;
  }
}

/** "a", "a or b", "a, b or c". */
function orList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

/** The most pages a category's `pages` may name (config/schema.ts). */
const MAX_TRACKED_PAGES = 10;

export type Progress = (message: string) => void;

export async function discover(
  reader: CatalogReader,
  request: DiscoverRequest,
  progress: Progress = () => {},
): Promise<Discovery> {
  const notes: string[] = [];
  const handles = new Map<string, string>();
  let developer: Discovery['developer'] = null;
  if (request.developer !== undefined) {
    developer = await readDeveloper(reader, request.developer, handles, notes, progress);
  }
  if (request.apps.length > 0) await checkGivenApps(reader, request.apps, handles, progress);
  if (handles.size === 0) {
    throw new ReviewwatchError(
      developer === null
        ? 'Nothing to discover from: give --developer HANDLE (your developer page) or --app HANDLE.'
        : `Developer "${request.developer}" lists no apps: name yours with --app HANDLE.`,
      { exitCode: ExitCode.Usage },
    );
  }
  const own = await readListings(reader, handles, notes, progress);
  if (own.length === 0) {
    throw new ReviewwatchError(
      'None of the apps found has a listing the API answers for: nothing to watch.',
      {
        exitCode: ExitCode.Failure,
      },
    );
  }
  const known = await knownCategories(reader, own, notes, progress);
  const ownHandles = new Set(own.map((app) => app.handle));
  const categories: FoundCategory[] = [];
  const competitors: Competitor[] = [];
  const perCategory = request.perCategory ?? 3;
  const searchPages = request.searchPages ?? 5;
  for (const handle of known) {
    progress(`Reading the ranks of category ${handle}…`);
    const inCategory = own.filter((app) => app.categories.includes(handle)).map((app) => app.handle);
    const ranked = await readRanks(reader, handle, inCategory, { perCategory, searchPages });
    const found = foundCategory(handle, inCategory, ranked, searchPages, notes);
    categories.push(found);
    const chosen = new Set([...ownHandles, ...competitors.map((c) => c.handle)]);
    competitors.push(...nearest(handle, ranked, found.ranks, chosen, perCategory));
  }
  return { developer, own, categories, competitors, notes };
}

/** Endpoint 4: the developer's apps, their handles taken from their URLs. An unknown developer is a typo. */
async function readDeveloper(
  reader: CatalogReader,
  handle: string,
  handles: Map<string, string>,
  notes: string[],
  progress: Progress,
): Promise<{ handle: string; name: string }> {
  let detail: Awaited<ReturnType<CatalogReader['developer']>> | undefined;
  if (isValidHandle(handle)) {
    progress(`Reading developer ${handle}…`);
    try {
      detail = await reader.developer(handle);
    } catch (err) {
      if (!(err instanceof CatalogNotFoundError)) throw err;
    }
  }
  if (detail === undefined) {
    progress('Looking for a close handle among all developers…');
    const all = await reader.developers();
    const listed = all.urls.map((u) => u.handle || handleFromUrl(u.url));
    throw new UnknownHandleError('developer', [{ handle, closest: closestHandles(handle, listed) }]);
  }
  for (const app of detail.apps) {
    if (isValidHandle(app.handle)) handles.set(app.handle, app.name);
    else notes.push(`Skipped "${app.name}" of ${handle}: its URL gives no handle (${app.url || 'no URL'}).`);
  }
  return { handle, name: detail.name };
}

/** Endpoint 7, once: every handle given must be a listed app; the unknown ones come with suggestions. */
async function checkGivenApps(
  reader: CatalogReader,
  given: readonly string[],
  handles: Map<string, string>,
  progress: Progress,
): Promise<void> {
  progress(
    `Checking ${given.length === 1 ? 'the app' : `${given.length} apps`} against the marketplace's app list…`,
  );
  const list = await reader.apps();
  const listed = new Set(list.apps.map((a) => a.handle || handleFromUrl(a.url)));
  const unknown = given
    .filter((handle) => !listed.has(handle))
    .map((handle) => ({ handle, closest: closestHandles(handle, listed) }));
  if (unknown.length > 0) throw new UnknownHandleError('app', unknown);
  for (const handle of given) if (!handles.has(handle)) handles.set(handle, handle);
}

/** Endpoint 3 per app: its name and categories. A listing that answers 404 is skipped with a note. */
async function readListings(
  reader: CatalogReader,
  handles: Map<string, string>,
  notes: string[],
  progress: Progress,
): Promise<OwnApp[]> {
  const own: OwnApp[] = [];
  let i = 0;
  for (const handle of handles.keys()) {
    progress(`Reading listing ${++i}/${handles.size}: ${handle}…`);
    let detail: AppDetail;
    try {
      detail = await reader.app(handle);
    } catch (err) {
      if (!(err instanceof CatalogNotFoundError)) throw err;
      notes.push(`Skipped ${handle}: its listing answers 404 (renamed or delisted).`);
      continue;
    }
    const categories = [...new Set((detail.categories ?? []).map(categoryHandleOf).filter((h) => h !== ''))];
    own.push({ handle, name: detail.title, categories });
  }
  return own;
}

/** A listing's category link gives its handle; the older form gives only a name, slugged the same way. */
function categoryHandleOf(ref: { name: string; url: string }): string {
  const fromUrl = ref.url === '' ? '' : handleFromUrl(ref.url);
  if (isValidHandle(fromUrl)) return fromUrl;
  const slug = ref.name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return isValidHandle(slug) ? slug : '';
}

/** Endpoint 5: the categories the listings name that the marketplace lists, in the order first named. */
async function knownCategories(
  reader: CatalogReader,
  own: OwnApp[],
  notes: string[],
  progress: Progress,
): Promise<Set<string>> {
  const named = [...new Set(own.flatMap((app) => app.categories))];
  if (named.length === 0) {
    notes.push('No listing names a category: no competitors to suggest and no ranks to track.');
    return new Set();
  }
  progress('Reading the category list…');
  const list = await reader.categories();
  const listed = new Set(list.urls.map((u) => u.handle || handleFromUrl(u.url)));
  const known = new Set<string>();
  for (const handle of named) {
    if (listed.has(handle)) known.add(handle);
    else notes.push(`Category ${handle}, named by a listing, is not in the category list: not tracked.`);
  }
  for (const app of own) app.categories = app.categories.filter((h) => known.has(h));
  return known;
}

interface Ranked {
  name: string;
  /** Organic entries in rank order (rank = index + 1), each with the page it was on. */
  organic: Array<{ entry: CategoryEntry; page: number }>;
}

/**
 * Endpoint 2, page by page: the organic results (ads apart, each app once), until your apps and the
 * `perCategory` below the deepest of them are in, the category ends, or `searchPages` were read.
 */
async function readRanks(
  reader: CatalogReader,
  handle: string,
  ownHere: readonly string[],
  limits: { perCategory: number; searchPages: number },
): Promise<Ranked> {
  const organic: Ranked['organic'] = [];
  const seen = new Set<string>();
  let name = handle;
  for (let page = 1; page <= limits.searchPages; page++) {
    const data = await reader.category(handle, { page });
    if (data.name) name = data.name;
    for (const entry of data.apps) {
      if (entry.isSponsored || seen.has(entry.handle)) continue;
      seen.add(entry.handle);
      organic.push({ entry, page });
    }
    const ranks = ownHere.map((h) => organic.findIndex((o) => o.entry.handle === h));
    const allFound = ranks.every((r) => r >= 0);
    const deepest = Math.max(-1, ...ranks);
    const enoughBelow = organic.length > deepest + limits.perCategory;
    if (data.apps.length === 0 || !data.pagination?.hasNextPage || (allFound && enoughBelow)) break;
  }
  return { name, organic };
}

function foundCategory(
  handle: string,
  ownHere: readonly string[],
  ranked: Ranked,
  searchPages: number,
  notes: string[],
): FoundCategory {
  const ranks = ownHere.map((app) => {
    const index = ranked.organic.findIndex((o) => o.entry.handle === app);
    return { handle: app, rank: index < 0 ? null : index + 1, page: ranked.organic[index]?.page ?? null };
  });
  const missing = ranks.filter((r) => r.rank === null).map((r) => r.handle);
  if (missing.length > 0) {
    notes.push(
      `${missing.join(', ')} not among the ${ranked.organic.length} organic results of ${handle} read (${searchPages} pages at most): tracking ${Math.min(searchPages, MAX_TRACKED_PAGES)} pages; its competitors there are the lowest ranked of those.`,
    );
  }
  const deepestPage = Math.max(2, ...ranks.map((r) => r.page ?? 0));
  const pages = Math.min(
    MAX_TRACKED_PAGES,
    missing.length > 0 ? Math.max(deepestPage, searchPages) : deepestPage,
  );
  return {
    handle,
    name: ranked.name,
    ranks: ranks.map(({ handle: h, rank }) => ({ handle: h, rank })),
    pages,
  };
}

/**
 * The `count` organic apps ranked nearest to any of yours, not yours and not already suggested; on a
 * tie the one above (the app you are trying to pass) first. With none of yours found, the lowest ranked
 * of those read: the nearest above you.
 */
function nearest(
  category: string,
  ranked: Ranked,
  ownRanks: FoundCategory['ranks'],
  exclude: ReadonlySet<string>,
  count: number,
): Competitor[] {
  const anchors = ownRanks.flatMap((r) => (r.rank === null ? [] : [{ handle: r.handle, rank: r.rank }]));
  const below = ranked.organic.length + 1;
  return ranked.organic
    .map(({ entry }, index) => {
      const rank = index + 1;
      const near = anchors.reduce<{ handle: string; rank: number } | null>(
        (best, a) => (best === null || Math.abs(a.rank - rank) < Math.abs(best.rank - rank) ? a : best),
        null,
      );
      const distance = near === null ? below - rank : Math.abs(near.rank - rank);
      return { handle: entry.handle, name: entry.name, category, rank, near, distance };
    })
    .filter((c) => !exclude.has(c.handle) && isValidHandle(c.handle))
    .sort((a, b) => a.distance - b.distance || a.rank - b.rank)
    .slice(0, count)
    .sort((a, b) => a.rank - b.rank)
    .map(({ distance: _distance, ...competitor }) => competitor);
}
