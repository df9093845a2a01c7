// `hds synonyms get|set FILE` and `hds similar DOC_ID`: the Client's synonym set and the documents like one, over
// the typed client. A person gets the rules one a line, or the ranked rows as `hds search` prints them; --json
// prints the service's answer as it came.

import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { SearchClient, SimilarRequest, SimilarResponse, SynonymRule, SynonymSettings } from '../../clients/typescript/src/index.ts';
import { UsageError } from './connection.ts';

export interface SynonymCommandContext {
  client: () => SearchClient;
  /** Prints for a person, or the answer as JSON. */
  print: (answer: unknown, asJson: boolean, forPerson: () => string) => void;
  renderRows: (answer: SimilarResponse) => string;
  filters: (entries: [string, string][] | undefined) => Record<string, unknown>;
  pairs: (pair: string, previous?: [string, string][]) => [string, string][];
  limit: (text: string) => number;
}

/** One rule a line: `a = b = c` for a set, `a => b, c` for a one-way rule. */
export function renderSynonyms(settings: SynonymSettings): string {
  if (settings.synonyms.length === 0) return 'no synonyms\n';
  return `${settings.synonyms.map((rule) => ('terms' in rule && rule.terms ? rule.terms.join(' = ') : `${rule.input} => ${(rule.synonyms ?? []).join(', ')}`)).join('\n')}\n`;
}

/** The set a FILE holds: the body of PUT /settings/synonyms, or its bare list of rules. */
function readRules(file: string): SynonymRule[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`${file} is not a JSON file of synonyms: ${error instanceof Error ? error.message : String(error)}`);
  }
  const rules = Array.isArray(parsed) ? parsed : (parsed as { synonyms?: unknown } | null)?.synonyms;
  if (!Array.isArray(rules)) throw new UsageError(`${file} holds neither {"synonyms": [...]} nor a list of rules`);
  return rules as SynonymRule[];
}

export function registerSynonymCommands(program: Command, context: SynonymCommandContext): void {
  const synonyms = program.command('synonyms').description("the Client's synonyms: they widen keyword search of document text, never metadata");
  synonyms
    .command('get')
    .description('print the synonym set')
    .option('--json', 'print the answer as JSON')
    .action(async (options) => {
      const answer = await context.client().synonyms();
      context.print(answer, options.json === true, () => renderSynonyms(answer));
    });
  synonyms
    .command('set')
    .description('replace the whole synonym set with the rules of FILE ({"synonyms": [{"terms": [...]}, {"input": "...", "synonyms": [...]}]})')
    .argument('<file>')
    .option('--json', 'print the answer as JSON')
    .action(async (file: string, options) => {
      const answer = await context.client().setSynonyms(readRules(file));
      context.print(answer, options.json === true, () => renderSynonyms(answer));
    });

  program
    .command('similar')
    .description('the documents most like DOC_ID (its latest version unless --version)')
    .argument('<doc_id>')
    .option('--version <version_id>', 'start from this version')
    .option('--filter <key=value>', 'exact filter, repeatable (e.g. metadata.custom.branch=KL)', context.pairs)
    .option('--limit <n>', 'rows', context.limit, 10)
    .option('--include-deleted', 'include soft-deleted documents')
    .option('--json', 'print the answer as JSON')
    .action(async (documentId: string, options) => {
      const request: SimilarRequest = { document_id: documentId, limit: options.limit, filters: context.filters(options.filter) };
      if (options.version !== undefined) request.version_id = options.version;
      if (options.includeDeleted) request.include_deleted = true;
      const answer = await context.client().similar(request);
      context.print(answer, options.json === true, () => context.renderRows(answer));
    });
}
