import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractEntities } from '../../src/ingest/entities/extract.ts';

test('dates in English and Malay word forms keep their written form', () => {
  const { dates } = extractEntities(
    'The account was opened on 31 December 2010 and closed on Dec 31, 2011. ' +
      'Akaun dibuka pada 31 Disember 2010 dan notis dikeluarkan pada 3hb Ogos 2019. ' +
      'Invoice Date: August 3 , 2014. Laporan bagi Mei 2018. Release Date: 28 Dis 2009.',
  );
  for (const expected of ['31 December 2010', 'Dec 31, 2011', '31 Disember 2010', '3hb Ogos 2019', 'August 3, 2014', 'Mei 2018', '28 Dis 2009']) {
    assert.ok(dates.includes(expected), `missing ${expected} in ${JSON.stringify(dates)}`);
  }
});

test('numeric dates are validated and ISO dates are found', () => {
  const { dates } = extractEntities('Posted 31/12/2010, value 2010-12-31, due 01.02.2020; not 45/13/2010 nor 2010-13-01 nor 12/31.');
  assert.ok(dates.includes('31/12/2010'));
  assert.ok(dates.includes('2010-12-31'));
  assert.ok(dates.includes('01.02.2020'));
  assert.ok(!dates.some((d) => d.includes('45/13') || d.includes('2010-13')), JSON.stringify(dates));
});

test('words that look like months without a year are not dates', () => {
  const { dates } = extractEntities('You may apply in March. Mac and Dis are not dates. Room 12 May Street.');
  assert.deepEqual(dates, []);
});

test('dates inside links are ignored', () => {
  const { dates } = extractEntities('See https://www.bnm.gov.my/-/notice-20-october-2009 for details.');
  assert.deepEqual(dates, []);
});

test('monetary amounts with currency codes, symbols and Malay or English scale words', () => {
  const { monetary_amounts: amounts } = extractEntities(
    'Wang berjumlah RM15.3 juta dibekukan, denda RM 1,234.56 dan RM5,000. Dana 1.5 bilion ringgit. ' +
      'Fee USD 12.00, EUR 444,29 and $1,234 plus Rs. 1,250 and INR 500. Fines of RM1.5million and 10 million dollars.',
  );
  for (const expected of ['RM15.3 juta', 'RM 1,234.56', 'RM5,000', '1.5 bilion ringgit', 'USD 12.00', 'EUR 444,29', '$1,234', 'Rs. 1,250', 'INR 500', 'RM1.5million', '10 million dollars']) {
    assert.ok(amounts.includes(expected), `missing ${expected} in ${JSON.stringify(amounts)}`);
  }
});

test('bare numbers, percentages and words containing RM are not money', () => {
  const { monetary_amounts: amounts } = extractEntities('FORM 1040 line 25, rate 3.00%, 12345 units, RMX 100, PERMIT 50.');
  assert.deepEqual(amounts, []);
});

test('dates inside e-mail addresses and upper-case links are ignored too', () => {
  for (const text of ['Mail notice-20-october-2009@bnm.example.com today.', 'See WWW.BNM.GOV.MY/notice-21-october-2009 today.', 'See HTTP://bnm.example/notice-21-october-2009 today.']) {
    assert.deepEqual(extractEntities(text).dates, [], text);
  }
  assert.ok(extractEntities('Notice 20 October 2009.').dates.length === 1);
});

test('dates of the last century, worded and numeric, and none in a text without a year', () => {
  const { dates } = extractEntities('Born 5 May 1987, joined on 1999-12-31 and left 31/01/1995.');
  for (const expected of ['5 May 1987', '1999-12-31', '31/01/1995']) assert.ok(dates.includes(expected), `missing ${expected} in ${JSON.stringify(dates)}`);
  assert.deepEqual(extractEntities('Due on 5 May, paid 31/01 and reviewed in March.').dates, []);
});
