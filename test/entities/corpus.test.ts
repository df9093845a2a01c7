import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ENTITY_TYPES } from '../../src/domain/entities.ts';
import { extractEntities } from '../../src/ingest/entities/extract.ts';
import { MAX_ENTITIES_PER_TYPE, MAX_ENTITY_CHARS } from '../../src/ingest/entities/limits.ts';
import { BNM_ENGLISH_FILE, BNM_MALAY_FILE, MT940_FILE, bnmNoticeContaining, readCorpusText } from './corpus.ts';

const includesAll = (actual: string[], expected: string[]): void => {
  for (const value of expected) assert.ok(actual.includes(value), `missing ${value} in ${JSON.stringify(actual)}`);
};

test('MT940 statement: IBANs, ISO value dates, EUR amounts, references and the account type', () => {
  const entities = extractEntities(readCorpusText(MT940_FILE));
  includesAll(entities.account_numbers, ['NL81ASNB9999999999', 'NL47INGB9999999999', 'NL08ABNA9999999999']);
  // ":60F:C200101EUR444,29" opens the statement; ":61:2001010101D65,00..." is its first entry
  includesAll(entities.dates, ['2020-01-01', '2020-01-31']);
  includesAll(entities.monetary_amounts, ['EUR 444,29', 'EUR 65,00', 'EUR 1000,00']);
  includesAll(entities.transaction_refs, ['0000000000', 'NL47INGB9999999999']);
  includesAll(entities.account_types, ['betaalrekening']);
  assert.ok(!entities.dates.includes('2020-13-01'));
  assert.deepEqual(entities.persons, []); // payee names are lower case in this file: no guessing
});

test('MT940 fields split across chunks still yield their own entities', () => {
  const text = readCorpusText(MT940_FILE);
  const secondEntry = text.indexOf(':61:2001050105C1000,00');
  const chunk = text.slice(secondEntry, secondEntry + 300); // an entry without its ":60F:" currency line
  const entities = extractEntities(chunk);
  includesAll(entities.dates, ['2020-01-05']);
  includesAll(entities.account_numbers, ['NL56ASNB9999999999']);
  assert.ok(!entities.monetary_amounts.some((a) => a.startsWith('undefined')), JSON.stringify(entities.monetary_amounts));
});

test('BNM Malay notice: Malay dates, RM juta amounts, Bank Negara Malaysia, places', () => {
  const notice = bnmNoticeContaining(BNM_MALAY_FILE, 'RM15.3 juta');
  const entities = extractEntities(notice.content);
  includesAll(entities.monetary_amounts, ['RM15.3 juta', 'RM1.5 juta']);
  includesAll(entities.organizations, ['Bank Negara Malaysia']);
  assert.ok(entities.dates.some((d) => /\b(Januari|Februari|Mac|April|Mei|Jun|Julai|Ogos|September|Oktober|November|Disember|Dis|Okt|Ogo)\b/.test(d)), JSON.stringify(entities.dates));
});

test('BNM Malay notices carry "31 Disember 2010"', () => {
  const notice = bnmNoticeContaining(BNM_MALAY_FILE, '31 Disember 2010');
  includesAll(extractEntities(notice.content).dates, ['31 Disember 2010']);
});

test('BNM English notice: English dates, RM million amounts, organizations and persons', () => {
  const notice = bnmNoticeContaining(BNM_ENGLISH_FILE, 'RM15.3 millio');
  const entities = extractEntities(notice.content);
  assert.ok(entities.monetary_amounts.some((a) => a.startsWith('RM15.3 million')), JSON.stringify(entities.monetary_amounts));
  includesAll(entities.organizations, ['Bank Negara Malaysia']);
  const contact = bnmNoticeContaining(BNM_ENGLISH_FILE, 'Encik Ahmad Hazim Alias');
  includesAll(extractEntities(contact.content).persons, ['Ahmad Hazim Alias', 'Mohd Hairi Mohd Tahir']);
});

test('BNM address line: Jalan address and postcode with Kuala Lumpur', () => {
  const notice = bnmNoticeContaining(BNM_MALAY_FILE, "Jalan Dato' Onn, 50480 Kuala Lumpur");
  const { locations } = extractEntities(notice.content);
  includesAll(locations, ["Jalan Dato' Onn", '50480 Kuala Lumpur']);
});

test('a whole 1 MB CSV stays within the per-type bound and the value-length limit', () => {
  const entities = extractEntities(readCorpusText(BNM_ENGLISH_FILE));
  for (const type of ENTITY_TYPES) {
    assert.ok(entities[type].length <= MAX_ENTITIES_PER_TYPE, `${type}: ${entities[type].length}`);
    for (const value of entities[type]) {
      assert.ok(value.length > 0 && value.length <= MAX_ENTITY_CHARS, `${type}: ${value}`);
      assert.equal(value, value.trim().replace(/\s+/g, ' '));
    }
  }
  assert.equal(entities.monetary_amounts.length, MAX_ENTITIES_PER_TYPE); // the file has far more amounts than the cap
  assert.equal(new Set(entities.organizations.map((o) => o.toLowerCase())).size, entities.organizations.length);
});
