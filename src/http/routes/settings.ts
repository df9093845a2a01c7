// PUT and GET /settings/synonyms: a Client's synonym set, replaced whole (search/synonym-settings.ts).

import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';
import { RequestValidationError } from '../validation.ts';
import { MAX_SYNONYM_RULES, MAX_SYNONYM_TERM_LENGTH, MAX_TERMS_PER_RULE, synonymRuleProblems } from '../../search/synonyms.ts';
import type { SynonymRule } from '../../search/synonyms.ts';

const TERM = { type: 'string', minLength: 1, maxLength: MAX_SYNONYM_TERM_LENGTH, pattern: '\\S', description: 'A word or short phrase, matched after the query normalization (case and width folded).' } as const;

/** Both rule shapes in one object schema: which keys go together is checked by synonymRuleProblems. */
const RULE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  description: 'A multi-way set {"terms": [...]} (any term finds the others) or a one-way rule {"input": "...", "synonyms": [...]} (the input also finds the synonyms).',
  properties: {
    terms: { type: 'array', description: 'A multi-way set: each term also finds the others.', minItems: 2, maxItems: MAX_TERMS_PER_RULE, items: TERM },
    input: { ...TERM, description: 'A one-way rule: this term also finds its synonyms.' },
    synonyms: { type: 'array', description: 'What the input also finds (they do not find the input).', minItems: 1, maxItems: MAX_TERMS_PER_RULE, items: TERM },
  },
} as const;

export const SYNONYMS_BODY_SCHEMA = {
  title: 'SynonymSettings',
  description: "The Client's synonym set: it widens the content lane's keyword query and never the metadata lane.",
  type: 'object',
  additionalProperties: false,
  required: ['synonyms'],
  properties: { synonyms: { type: 'array', description: `The rules, at most ${MAX_SYNONYM_RULES}; a PUT replaces the whole set.`, maxItems: MAX_SYNONYM_RULES, items: RULE_SCHEMA } },
} as const;

export function registerSettingsRoutes(app: FastifyInstance, services: Services): void {
  app.get('/settings/synonyms', { schema: { tags: ['settings'] } }, async (request) => ({ synonyms: await services.synonyms.rules(request.clientId!) }));

  app.put<{ Body: { synonyms: Record<string, unknown>[] } }>('/settings/synonyms', { schema: { tags: ['settings'], body: SYNONYMS_BODY_SCHEMA } }, async (request) => {
    const problems = synonymRuleProblems(request.body.synonyms);
    if (problems.length > 0) throw new RequestValidationError(problems);
    const rules = request.body.synonyms as unknown as SynonymRule[];
    await services.synonyms.replace(request.clientId!, rules);
    return { synonyms: rules };
  });
}
