// A small fixed list of Malay and English function words that the built-in lexical models down-weight.
// Fixed on purpose: built-in models must stay deterministic, so this list never learns from the corpus.

const MALAY = [
  'yang', 'dan', 'di', 'ke', 'dari', 'daripada', 'pada', 'untuk', 'dengan', 'ini', 'itu', 'ialah', 'adalah',
  'akan', 'telah', 'sudah', 'oleh', 'dalam', 'atau', 'juga', 'tidak', 'bagi', 'kepada', 'tersebut', 'sebagai',
  'mereka', 'kita', 'kami', 'ia', 'dia', 'saya', 'anda', 'ada', 'lebih', 'boleh', 'hal', 'antara', 'serta',
  'iaitu', 'apa', 'siapa', 'bila', 'bagaimana', 'mengapa', 'manakala', 'tetapi', 'namun', 'jika', 'kerana',
  'seperti', 'para', 'sebuah', 'seorang', 'satu', 'masa', 'semua', 'banyak',
];

const ENGLISH = [
  'the', 'a', 'an', 'of', 'to', 'in', 'and', 'or', 'is', 'are', 'was', 'were', 'be', 'been', 'for', 'on', 'at',
  'by', 'with', 'from', 'as', 'that', 'this', 'these', 'those', 'it', 'its', 'which', 'who', 'what', 'when',
  'where', 'how', 'why', 'not', 'no', 'but', 'if', 'than', 'then', 'there', 'their', 'they', 'we', 'you', 'he',
  'she', 'has', 'have', 'had', 'do', 'does', 'did', 'can', 'will', 'would', 'into', 'about',
];

/** Lower-case function words; changing this list changes the hashing model (bump its version). */
export const FUNCTION_WORDS: ReadonlySet<string> = new Set([...MALAY, ...ENGLISH]);
