import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractEntities } from '../../src/ingest/entities/extract.ts';
import { ACCOUNT_TYPE_PHRASES } from '../../src/ingest/entities/account-types.ts';

test('labelled account numbers in English and Malay', () => {
  const { account_numbers: accounts } = extractEntities(
    'Account No.: 1234-5678-90\nSila bayar ke No. Akaun 1234-5678-9012 (Maybank).\nAccount number:\n296664039561\nNombor Akaun: 5123 4567 8901',
  );
  for (const expected of ['1234-5678-90', '1234-5678-9012', '296664039561', '5123 4567 8901']) {
    assert.ok(accounts.includes(expected), `missing ${expected} in ${JSON.stringify(accounts)}`);
  }
});

test('IBANs are checked against the country length; masked numbers are kept', () => {
  const { account_numbers: accounts } = extractEntities(
    'Pay to NL81ASNB9999999999 or GB29 NWBK 6016 1331 9268 19. Card XXXX-XXXX-1234, acct ****5678. ' +
      'Not an IBAN: NL81ASNB99 or MY12ABCD1234567890.',
  );
  assert.ok(accounts.includes('NL81ASNB9999999999'));
  assert.ok(accounts.includes('GB29 NWBK 6016 1331 9268 19'));
  assert.ok(accounts.includes('XXXX-XXXX-1234'));
  assert.ok(accounts.includes('****5678'));
  assert.ok(!accounts.some((a) => a.startsWith('MY12') || a === 'NL81ASNB99'), JSON.stringify(accounts));
});

test('identity-card numbers, phone numbers and years are not account numbers', () => {
  const { account_numbers: accounts } = extractEntities(
    'Identity Card No. : 830129-05-5575. Tel 03-26988044. We took into account 2019 figures. No. K/P 940207-13-5587.',
  );
  assert.deepEqual(accounts, []);
});

test('transaction references: labels, Malay labels and document codes', () => {
  const { transaction_refs: refs } = extractEntities(
    'Ref: TRX-88231-A. Invoice Number: 42183017. No. Rujukan: BNM/RH/2020-15. Order ID: OD107823488. ' +
      'Sila nyatakan No. Invois INV-2024-0001 dan Ruj. Kami: JPK/600-1/3. Payment reference 7719203.',
  );
  for (const expected of ['TRX-88231-A', '42183017', 'BNM/RH/2020-15', 'OD107823488', 'INV-2024-0001', 'JPK/600-1/3', '7719203']) {
    assert.ok(refs.includes(expected), `missing ${expected} in ${JSON.stringify(refs)}`);
  }
});

test('prose uses of "reference" are not references', () => {
  const { transaction_refs: refs } = extractEntities(
    'Shariah Parameter Reference 3: Mudarabah. With reference to the 2019 report, see reference material. Sebagai rujukan 2019.',
  );
  assert.deepEqual(refs, []);
});

test('account types in English and Malay, reported in dictionary form', () => {
  const { account_types: types } = extractEntities(
    'Open a Savings Account or current accounts today. Fixed Deposit rates rose. ' +
      'Buka akaun simpanan atau akaun semasa, atau simpanan tetap 12 bulan.',
  );
  for (const expected of ['savings account', 'current account', 'fixed deposit', 'akaun simpanan', 'akaun semasa', 'simpanan tetap']) {
    assert.ok(types.includes(expected), `missing ${expected} in ${JSON.stringify(types)}`);
  }
});

test('the balance-of-payments "current account" is not an account type', () => {
  const { account_types: types } = extractEntities(
    'The current account surplus narrowed. All current account (goods and services) transactions are free. Lebihan akaun semasa meningkat.',
  );
  assert.deepEqual(types, []);
});

test('every account type of the dictionary is found, in any letter case', () => {
  for (const phrase of ACCOUNT_TYPE_PHRASES) {
    for (const written of [phrase, phrase.toUpperCase(), phrase.replace(/\b\p{L}/gu, (letter) => letter.toUpperCase())]) {
      const { account_types: types } = extractEntities(`Status of the ${written}: open.`);
      assert.ok(types.includes(phrase), `${written} gave ${JSON.stringify(types)}`);
    }
  }
});

test('numbers masked with bullets or lower-case x are kept', () => {
  const { account_numbers: accounts } = extractEntities('Debited from ••••4821 and xx-xx-9034 today.');
  assert.ok(accounts.includes('••••4821'), JSON.stringify(accounts));
  assert.ok(accounts.includes('xx-xx-9034'), JSON.stringify(accounts));
});
