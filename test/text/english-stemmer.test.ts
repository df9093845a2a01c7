import { test } from 'node:test';
import assert from 'node:assert/strict';
import { porterDerivational, porterInflectional, porterStem } from '../../src/text/english-stemmer.ts';

// Examples from Porter's 1980 paper, step by step, plus words from banking text.
const EXPECTED: Record<string, string> = {
  caresses: 'caress', ponies: 'poni', ties: 'ti', caress: 'caress', cats: 'cat',
  feed: 'feed', agreed: 'agre', plastered: 'plaster', bled: 'bled', motoring: 'motor', sing: 'sing',
  conflated: 'conflat', troubled: 'troubl', sized: 'size', hopping: 'hop', tanned: 'tan', falling: 'fall',
  hissing: 'hiss', fizzed: 'fizz', failing: 'fail', filing: 'file', happy: 'happi', sky: 'sky',
  relational: 'relat', conditional: 'condit', rational: 'ration', valenci: 'valenc', hesitanci: 'hesit',
  digitizer: 'digit', conformabli: 'conform', radicalli: 'radic', differentli: 'differ', vileli: 'vile',
  analogousli: 'analog', vietnamization: 'vietnam', predication: 'predic', operator: 'oper',
  feudalism: 'feudal', decisiveness: 'decis', hopefulness: 'hope', callousness: 'callous',
  formaliti: 'formal', sensitiviti: 'sensit', sensibiliti: 'sensibl', triplicate: 'triplic',
  formative: 'form', formalize: 'formal', electriciti: 'electr', electrical: 'electr', hopeful: 'hope',
  goodness: 'good', revival: 'reviv', allowance: 'allow', inference: 'infer', airliner: 'airlin',
  gyroscopic: 'gyroscop', adjustable: 'adjust', defensible: 'defens', irritant: 'irrit',
  replacement: 'replac', adjustment: 'adjust', dependent: 'depend', adoption: 'adopt', homologou: 'homolog',
  communism: 'commun', activate: 'activ', angulariti: 'angular', homologous: 'homolog', effective: 'effect',
  bowdlerize: 'bowdler', probate: 'probat', rate: 'rate', cease: 'ceas', controll: 'control', roll: 'roll',
  generalizations: 'gener', oscillators: 'oscil', archaeology: 'archaeolog',
  statements: 'statement', accounts: 'account', transferred: 'transfer', payments: 'payment',
};

test('Porter stems match the reference examples', () => {
  for (const [word, stem] of Object.entries(EXPECTED)) assert.equal(porterStem(word), stem, word);
});

test('inflectional then derivational steps compose to the full stemmer', () => {
  for (const word of Object.keys(EXPECTED)) assert.equal(porterDerivational(porterInflectional(word)), porterStem(word), word);
  assert.equal(porterInflectional('penalties'), porterInflectional('penalty'));
});

test('short words and anything that is not lower-case a-z are left alone', () => {
  for (const word of ['is', 'as', 'ACCOUNTS', 'café', 'rm15', 'acc-001', '']) assert.equal(porterStem(word), word);
});
