import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractEntities } from '../../src/ingest/entities/extract.ts';
import { createPhraseMatcher } from '../../src/ingest/entities/phrase-matcher.ts';

const includesAll = (actual: string[], expected: string[]): void => {
  for (const value of expected) assert.ok(actual.includes(value), `missing ${value} in ${JSON.stringify(actual)}`);
};

test('persons after Malay and English honorifics, without the titles', () => {
  const { persons } = extractEntities(
    'Mesyuarat dihadiri oleh Encik Ahmad bin Abdullah, Puan Siti Aminah binti Hassan, Tan Sri Dr. Mohd Daud Bakar ' +
      "dan Dato' Sri Lim Guan Eng. Mr. John Smith and Dr Jane Doe of Acme met Pn. Rosnah. Cik Nurul Huda Ismail hadir.",
  );
  includesAll(persons, ['Ahmad bin Abdullah', 'Siti Aminah binti Hassan', 'Mohd Daud Bakar', 'Lim Guan Eng', 'John Smith', 'Jane Doe', 'Rosnah', 'Nurul Huda Ismail']);
  assert.ok(!persons.some((p) => /^(Encik|Puan|Tan Sri|Dr|Mr)\b/.test(p)), JSON.stringify(persons));
});

test('patronymic names without a title, and Indian a/l a/p names', () => {
  const { persons } = extractEntities('Penama: Ahmad Zaki bin Yusof. Saksi kedua ialah Kumar a/l Raju dan Avinder Sandhu a/p Darshan Singh.');
  includesAll(persons, ['Ahmad Zaki bin Yusof', 'Kumar a/l Raju', 'Avinder Sandhu a/p Darshan Singh']);
});

test('signers under letter closings and names after labels', () => {
  const english = extractEntities('Thank you for your help.\n\nYours sincerely,\n\nMary Anne Walker\nBranch Manager');
  const malay = extractEntities('Sekian, terima kasih.\n\nYang benar,\n\n(AHMAD FAIZAL BIN OMAR)\nPengurus Cawangan');
  const labelled = extractEntities('Nama: Nor Azlina Kamaruddin\nAccount Holder: Tan Wei Ming');
  includesAll(english.persons, ['Mary Anne Walker']);
  includesAll(malay.persons, ['AHMAD FAIZAL BIN OMAR']);
  includesAll(labelled.persons, ['Nor Azlina Kamaruddin', 'Tan Wei Ming']);
});

test('titles that are not followed by a name produce no person', () => {
  const { persons } = extractEntities('Dear Sir/Madam, the Prime Minister. Click here. Kepada Tuan/Puan, sila ambil perhatian. Dr. (retired)');
  assert.deepEqual(persons, []);
});

test('organizations by legal suffix, head noun and gazetteer', () => {
  const { organizations } = extractEntities(
    'Syarikat ABC Sdn. Bhd. menerima surat daripada Bank Negara Malaysia dan Kementerian Kewangan. ' +
      'Amazon Web Services, Inc. billed iViveLabs Limited. Suruhanjaya Sekuriti Malaysia, Lembaga Hasil Dalam Negeri ' +
      'and Jabatan Kastam Diraja Malaysia were informed, as was the Ministry of Finance. Standard Chartered Bank Malaysia Berhad, ' +
      'CIMB Bank Berhad and i-Serve Online Mall Sdn. Bhd. were named.',
  );
  includesAll(organizations, [
    'Syarikat ABC Sdn. Bhd.',
    'Bank Negara Malaysia',
    'Kementerian Kewangan',
    'Amazon Web Services, Inc.',
    'iViveLabs Limited',
    'Suruhanjaya Sekuriti Malaysia',
    'Lembaga Hasil Dalam Negeri',
    'Jabatan Kastam Diraja Malaysia',
    'Ministry of Finance',
    'Standard Chartered Bank Malaysia Berhad',
    'CIMB Bank Berhad',
    'i-Serve Online Mall Sdn. Bhd.',
  ]);
});

test('a list of companies is split at commas and at "and", and a lone head noun is no organization', () => {
  const { organizations } = extractEntities('Maybank, CIMB Bank Berhad and Hong Leong Bank Berhad agreed. The Bank said the bank statement is ready.');
  includesAll(organizations, ['Maybank', 'CIMB Bank Berhad', 'Hong Leong Bank Berhad']);
  assert.ok(!organizations.some((o) => o.includes(',') || o.includes(' and ') || o === 'Bank' || /statement/i.test(o)), JSON.stringify(organizations));
});

test('locations: gazetteer places, Jalan addresses and postcodes with towns', () => {
  const { locations } = extractEntities(
    "Alamat: Bank Negara Malaysia, Jalan Dato' Onn, 50480 Kuala Lumpur. Cawangan di Johor Bahru, Pulau Pinang dan Kota Kinabalu, Sabah. " +
      'Offices in Singapore, London and New York; 410 Terry Ave North, Seattle. Hospital at 32100 Lumut.',
  );
  includesAll(locations, ["Jalan Dato' Onn", '50480 Kuala Lumpur', 'Kuala Lumpur', 'Johor Bahru', 'Pulau Pinang', 'Kota Kinabalu', 'Sabah', 'Singapore', 'London', 'New York', '410 Terry Ave', 'Seattle', '32100 Lumut']);
});

test('a place inside an organization name is not a location, and a street name is not a person', () => {
  const { locations, persons } = extractEntities("Bank Negara Malaysia, Jalan Dato' Onn, 50480 Kuala Lumpur.");
  assert.ok(!locations.includes('Malaysia'), JSON.stringify(locations));
  assert.ok(!persons.includes('Onn'), JSON.stringify(persons));
});

test('upper-case place names report the gazetteer spelling once', () => {
  const { locations } = extractEntities('KUALA LUMPUR, SELANGOR. Kuala Lumpur again.');
  assert.deepEqual(locations.filter((l) => l.toLowerCase() === 'kuala lumpur'), ['Kuala Lumpur']);
  assert.ok(locations.includes('Selangor'));
});

test('gazetteer phrases starting with a non-ASCII capital are found, and never inside a word', () => {
  const matcher = createPhraseMatcher(['Ärzte Ohne Grenzen', '𝐀stral City', 'Éire']);
  const found = (text: string): string[] => {
    const hits: string[] = [];
    matcher.find(text, (hit) => hits.push(`${hit.canonical}@${hit.start}`) > 0);
    return hits;
  };
  assert.deepEqual(found('Dari ÄRZTE OHNE GRENZEN ke 𝐀stral City, lalu Éire.'), ['Ärzte Ohne Grenzen@5', '𝐀stral City@27', 'Éire@46']);
  assert.deepEqual(found('McÄrzte Ohne Grenzen, x𝐀stral City, Éireann, Éire-land and Éire.'), ['Éire@60']);
  assert.deepEqual(found('no capital here at all, ärzte ohne grenzen \ud800'), []);
});
