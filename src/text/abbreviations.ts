// Conservative abbreviation table for content-lane queries (SPEC POST /search rule 5): English banking
// shorthand and common Malay written short forms. Only unambiguous entries; never used by the metadata lane.
// A Client whose own documents use the short form as a word keeps it (see query-normalizer.ts).

/** Normalized abbreviation -> expansion (one or more words). Keys are whole query words. */
export const ABBREVIATIONS: ReadonlyMap<string, string> = new Map([
  // English
  ['acc', 'account'],
  ['acct', 'account'],
  ['accts', 'accounts'],
  ['txn', 'transaction'],
  ['txns', 'transactions'],
  ['trx', 'transaction'],
  ['trxn', 'transaction'],
  ['stmt', 'statement'],
  ['stmts', 'statements'],
  ['amt', 'amount'],
  ['bal', 'balance'],
  ['pmt', 'payment'],
  ['pymt', 'payment'],
  ['wdl', 'withdrawal'],
  ['ref', 'reference'],
  ['qty', 'quantity'],
  ['dept', 'department'],
  ['mgmt', 'management'],
  ['govt', 'government'],
  ['intl', 'international'],
  ['yr', 'year'],
  ['yrs', 'years'],
  ['mth', 'month'],
  ['mths', 'months'],
  ['addr', 'address'],
  ['approx', 'approximately'],
  ['cust', 'customer'],
  ['mgr', 'manager'],
  // Malay
  ['yg', 'yang'],
  ['dgn', 'dengan'],
  ['utk', 'untuk'],
  ['tdk', 'tidak'],
  ['dlm', 'dalam'],
  ['sbg', 'sebagai'],
  ['kpd', 'kepada'],
  ['drp', 'daripada'],
  ['spt', 'seperti'],
  ['blh', 'boleh'],
  ['jgn', 'jangan'],
  ['krn', 'kerana'],
  ['tlg', 'tolong'],
  ['sbb', 'sebab'],
  ['bkn', 'bukan'],
  ['sdh', 'sudah'],
  ['skrg', 'sekarang'],
  ['akn', 'akan'],
  ['bhg', 'bahagian'],
  ['byrn', 'bayaran'],
  ['pmbyrn', 'pembayaran'],
]);

/** Abbreviations written with a slash (a/c), matched on the normalized query before tokenization. */
export const SLASHED_ABBREVIATIONS: ReadonlyMap<string, string> = new Map([
  ['a/c', 'account'],
  ['w/d', 'withdrawal'],
]);
