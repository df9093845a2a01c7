import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ModelProviderError } from '../../src/models/model-error.ts';
import { buildNormalizer } from '../../src/models/tokenizer/normalizer.ts';
import { buildPreTokenizer, splitWithBehavior, type SplitBehavior } from '../../src/models/tokenizer/pre-tokenizer.ts';
import { loadTokenizerJson } from '../../src/models/tokenizer/tokenizer-json.ts';

test('split behaviors match the HuggingFace definitions', () => {
  const cases: Record<SplitBehavior, string[]> = {
    Removed: ['the', 'final', 'countdown'],
    Isolated: ['the', '-', 'final', '-', '-', 'countdown'],
    MergedWithPrevious: ['the-', 'final-', '-', 'countdown'],
    MergedWithNext: ['the', '-final', '-', '-countdown'],
    Contiguous: ['the', '-', 'final', '--', 'countdown'],
  };
  for (const [behavior, expected] of Object.entries(cases)) {
    assert.deepEqual(splitWithBehavior('the-final--countdown', /-/gu, behavior as SplitBehavior), expected, behavior);
  }
});

test('normalizers: BERT cleaning, sequences, replace, strip and precompiled', () => {
  const bert = buildNormalizer({ type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true });
  assert.equal(bert('Ça\u0000 va\tBIEN\u200b 中文'), 'ca va bien  中  文 ');
  const cased = buildNormalizer({ type: 'BertNormalizer', lowercase: false, strip_accents: null });
  assert.equal(cased('Çé'), 'Çé');
  const sequence = buildNormalizer({ type: 'Sequence', normalizers: [{ type: 'NFD' }, { type: 'StripAccents' }, { type: 'Lowercase' }, { type: 'Strip' }] });
  assert.equal(sequence('  Élève  '), 'eleve');
  const replace = buildNormalizer({ type: 'Sequence', normalizers: [{ type: 'Precompiled', precompiled_charsmap: 'ignored' }, { type: 'Replace', pattern: { Regex: ' {2,}' }, content: ' ' }] });
  assert.equal(replace('ｆｕｌｌ    width'), 'full width');
  assert.equal(buildNormalizer({ type: 'Replace', pattern: { String: '.' }, content: '!' })('a.b.c'), 'a!b!c');
  assert.equal(buildNormalizer(null)('As Is'), 'As Is');
});

test('pre-tokenizers: BERT, Whitespace, Digits, Metaspace and ByteLevel', () => {
  assert.deepEqual(buildPreTokenizer({ type: 'BertPreTokenizer' })('Hello, world! RM10.50'), ['Hello', ',', 'world', '!', 'RM10', '.', '50']);
  assert.deepEqual(buildPreTokenizer({ type: 'Whitespace' })('Hello, world!!'), ['Hello', ',', 'world', '!!']);
  assert.deepEqual(buildPreTokenizer({ type: 'Sequence', pretokenizers: [{ type: 'WhitespaceSplit' }, { type: 'Digits', individual_digits: true }] })('ab12 c3'), ['ab', '1', '2', 'c', '3']);
  assert.deepEqual(buildPreTokenizer({ type: 'Digits', individual_digits: false })('ab12c'), ['ab', '12', 'c']);
  assert.deepEqual(buildPreTokenizer({ type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true })('hello  world'), ['▁hello', '▁', '▁world']);
  assert.deepEqual(buildPreTokenizer({ type: 'Metaspace', replacement: '▁', add_prefix_space: false })('hi there'), ['hi', '▁there']);
  assert.deepEqual(buildPreTokenizer({ type: 'ByteLevel', add_prefix_space: false })("it's café"), ['it', "'s", 'Ġcafé'.replace('é', 'Ã©')]);
  assert.throws(() => buildPreTokenizer({ type: 'CharDelimiterSplit' }), (error: unknown) => error instanceof ModelProviderError && /CharDelimiterSplit/.test(error.message));
});

test('Unigram: Viterbi picks the most probable segmentation; unknown characters fuse into one [unk]', () => {
  const tokenizer = loadTokenizerJson({
    normalizer: null,
    pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    model: {
      type: 'Unigram', unk_id: 0,
      vocab: [['<unk>', 0], ['▁the', -1], ['▁cat', -1.5], ['▁ca', -3], ['s', -3], ['t', -4], ['▁', -2], ['c', -4], ['a', -4], ['▁c', -4], ['at', -2.2]],
    },
  });
  assert.equal(tokenizer.modelType, 'Unigram');
  // ▁cat + s (-4.5) beats ▁ca + t + s (-10) and ▁c + at + s (-9.2).
  assert.deepEqual(tokenizer.tokens('the cats'), ['▁the', '▁cat', 's']);
  assert.deepEqual(tokenizer.tokens('catzz'), ['▁cat', '<unk>']);
  assert.deepEqual(tokenizer.encode('catzz'), [2, 0]);
});

test('Unigram byte fallback replaces unknown characters by their UTF-8 byte tokens', () => {
  const tokenizer = loadTokenizerJson({
    pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'never' },
    model: { type: 'Unigram', unk_id: 0, byte_fallback: true, vocab: [['<unk>', 0], ['a', -1], ['<0xC3>', -5], ['<0xA9>', -5]] },
  });
  assert.deepEqual(tokenizer.tokens('aé'), ['a', '<0xC3>', '<0xA9>']);
  assert.deepEqual(tokenizer.tokens('aø'), ['a', '<unk>']);
});

test('BPE applies merges by rank, lowest first, on ByteLevel pieces', () => {
  const vocab = ['l', 'o', 'w', 'e', 'r', 'Ġ', 'lo', 'low', 'er', 'Ġl', 'Ġlo', 'Ġlow', 'Ġlower', '<unk>'];
  const tokenizer = loadTokenizerJson({
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, use_regex: true },
    model: {
      type: 'BPE', unk_token: '<unk>',
      vocab: Object.fromEntries(vocab.map((token, id) => [token, id])),
      merges: ['l o', 'lo w', ['e', 'r'], 'Ġ l', 'Ġl o', 'Ġlo w', 'Ġlow er'],
    },
  });
  assert.equal(tokenizer.modelType, 'BPE');
  // "l o" outranks "Ġ l", so " lower" never reaches the Ġlower token.
  assert.deepEqual(tokenizer.tokens('low lower'), ['low', 'Ġ', 'low', 'er']);
  assert.deepEqual(tokenizer.tokens('lowz'), ['low', '<unk>']);
});

test('BPE with a continuing-subword prefix and a merge naming a missing token', () => {
  const vocab = { a: 0, '##b': 1, ab: 2, '[UNK]': 3 };
  const tokenizer = loadTokenizerJson({ pre_tokenizer: { type: 'WhitespaceSplit' }, model: { type: 'BPE', unk_token: '[UNK]', continuing_subword_prefix: '##', vocab, merges: ['a ##b'] } });
  assert.deepEqual(tokenizer.tokens('ab a'), ['ab', 'a']);
  assert.throws(
    () => loadTokenizerJson({ model: { type: 'BPE', vocab, merges: ['a c'] } }),
    (error: unknown) => error instanceof ModelProviderError && error.code === 'model_file_invalid' && /merge 0 \(a c\)/.test(error.message),
  );
});
