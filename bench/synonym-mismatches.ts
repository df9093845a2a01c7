// Lists, for one half of a dataset's judged queries (bench/query-split.ts), the question words that its judged
// passage does not contain, so a reader can see where a question and its passage word the same thing
// differently and decide by hand which general synonym rule would bridge them. It chooses no rule and writes
// no file: the rules of bench/synonyms-ms-en-general.json were written by a person from its output of the dev
// half. Usage:
//   node bench/synonym-mismatches.ts [--queries dev|heldout] [--passages] [dataset]
// (dev and malay-squad by default). A word is missing when none of its query terms (analyzeQueryTerms: the
// keyword lane's stems of it) is among the passage's terms (analyzeTerms), so affixes the stemmer already
// strips are not reported. It prints every question with its missing words (and, with --passages, its
// passage), then the missing words by the number of questions they are missing from.

import { loadDataset } from './datasets.ts';
import type { Dataset } from './datasets.ts';
import { isQueryHalf, selectHalf } from './query-split.ts';
import { analyzeQueryTerms, analyzeTerms } from '../src/text/analyzer.ts';
import { normalizeText } from '../src/text/normalize.ts';
import { tokenize } from '../src/text/tokenize.ts';

const DATASETS: Record<string, () => Dataset> = {
  'malay-squad': () => loadDataset('malay-squad-supervised', 'test.tsv'),
};

/** Words missing from fewer questions than this are left out of the closing table (each is in its question's line). */
const TABLE_MIN_QUESTIONS = 2;

const args = process.argv.slice(2);
const showPassages = args.includes('--passages');
const queriesAt = args.indexOf('--queries');
const half = queriesAt >= 0 ? args.splice(queriesAt, 2)[1] : 'dev';
if (!isQueryHalf(half)) throw new Error(`--queries ${half}: choose dev or heldout`);
const name = args.filter((arg) => !arg.startsWith('--'))[0] ?? 'malay-squad';
if (!DATASETS[name]) throw new Error(`unknown dataset ${name}; choose from ${Object.keys(DATASETS).join(', ')}`);

const dataset = selectHalf(DATASETS[name](), half);
const passages = new Map(dataset.documents.map((doc) => [doc.id, `${doc.title} ${doc.text}`.trim()]));
const missingFrom = new Map<string, string[]>();
for (const [queryId, relevant] of dataset.qrels) {
  const question = dataset.queries.get(queryId);
  if (!question) continue;
  const passageTerms = new Set([...relevant.keys()].flatMap((id) => analyzeTerms(passages.get(id) ?? '')));
  const missing = new Set<string>();
  for (const token of tokenize(normalizeText(question))) {
    const terms = analyzeQueryTerms(token.text);
    if (terms.length > 0 && !terms.some((term) => passageTerms.has(term))) missing.add(token.text);
  }
  console.log(`${queryId}\t${question}\t-> missing: ${[...missing].join(', ') || '(none)'}`);
  if (showPassages) for (const id of relevant.keys()) console.log(`    ${id}: ${passages.get(id)}`);
  for (const word of missing) missingFrom.set(word, [...(missingFrom.get(word) ?? []), queryId]);
}
console.log(`\n${dataset.qrels.size} questions (${half} half); words missing from at least ${TABLE_MIN_QUESTIONS} of them:`);
for (const [word, ids] of [...missingFrom].filter(([, ids]) => ids.length >= TABLE_MIN_QUESTIONS).sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]))) {
  console.log(`${String(ids.length).padStart(4)}  ${word}`);
}
