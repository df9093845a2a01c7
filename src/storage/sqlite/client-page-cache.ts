// The page cache of a Client's database connection: sized to its file, between a floor and a cap. Memory
// estimates (serving/memory-estimate.ts) count it as a served Client's.

import type { PageCacheFit } from './database.ts';
import { CLIENT_CONNECTION_CACHE_MAX_KIB, CLIENT_CONNECTION_CACHE_MIN_KIB } from '../port.ts';

/**
 * Page cache of each Client's connection: CLIENT_DB_CACHE_SHARE of its database file, at least CLIENT_DB_CACHE_KIB
 * and at most CLIENT_DB_CACHE_MAX_KIB. A process keeps one connection per Client it has touched, so at SQLite's
 * default (2,000 KiB each) 200 small Clients held 400 MiB of cache outside any serving budget; a small Client's
 * connection keeps the floor. A chunk read (evidence texts, rescored vectors) descends the chunk table's B-tree and
 * its key's index, whose inner pages and index leaves are about 1/300 of a large Client's file: kept in the cache,
 * a read costs one page from the operating system instead of about three. Measured over 100,000 chunks (a file of
 * 864 MB), batches of 30 random chunk texts: 8.5 µs a row with 256 KiB, 6.1 with 2 MiB, 5.5 with 4 MiB. Pages
 * beyond it are read from the operating system's file cache.
 */
export const CLIENT_DB_CACHE_KIB = CLIENT_CONNECTION_CACHE_MIN_KIB;
export const CLIENT_DB_CACHE_MAX_KIB = CLIENT_CONNECTION_CACHE_MAX_KIB;
export const CLIENT_DB_CACHE_SHARE = 1 / 256;
/** Uses of a Client's connection between two fittings of its page cache to its file, which grows with its data. */
export const CLIENT_DB_CACHE_REFIT_USES = 4096;
export const CLIENT_PAGE_CACHE: PageCacheFit = { share: CLIENT_DB_CACHE_SHARE, minKiB: CLIENT_DB_CACHE_KIB, maxKiB: CLIENT_DB_CACHE_MAX_KIB };
