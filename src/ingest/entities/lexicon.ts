// Closed word lists (English and Malay) the extractors key on: honorifics, name connectors, words that
// end a name, organization suffixes and head nouns. Pure data; matching logic lives in the extractors.

/** Abbreviated titles, written with or without a period ("Dr." or "Dr", "En." or "En"). */
export const HONORIFIC_ABBREVIATIONS: readonly string[] = [
  'Mr', 'Mrs', 'Ms', 'Mdm', 'Dr', 'Prof', 'Rev', 'Capt', 'En', 'Pn', 'Tn', 'Sdr', 'Sdri', 'Hj', 'Hjh', 'YBhg',
];

/** Titles that introduce a person's name; the value reported is the name without them. */
export const HONORIFICS: readonly string[] = [
  ...HONORIFIC_ABBREVIATIONS,
  // English
  'Madam', 'Professor', 'Sir', 'Dame',
  // Malay courtesy titles
  'Encik', 'Puan', 'Cik', 'Tuan', 'Saudara', 'Saudari', 'Ustaz', 'Ustazah', 'Haji', 'Hajah',
  // Malaysian honours and offices
  'Tan Sri', 'Puan Sri', 'Toh Puan', 'Tun', 'Datuk Seri', 'Datuk Wira', 'Datuk', 'Dato Sri', 'Dato Seri',
  "Dato' Sri", "Dato' Seri", "Dato'", 'Dato’ Sri', 'Dato’ Seri', 'Dato’', 'Dato', 'Datin Paduka', 'Datin Seri',
  'Datin', 'YB', 'YAB', 'YM', 'Yang Berhormat', 'Yang Berbahagia', 'Yang Amat Berhormat',
  // Offices written directly before a name (Malay "Menteri" is followed by a portfolio instead, so it is not here)
  'Governor', 'Deputy Governor', 'Gabenor', 'Timbalan Gabenor', 'Prime Minister',
];

/** Titles that may legitimately appear inside a name ("Najib Tun Abdul Razak", "Ali bin Haji Omar"). */
export const TITLES_INSIDE_NAMES: ReadonlySet<string> = new Set(['tun', 'haji', 'hj', 'hajah', 'hjh', 'tuan', 'sir', 'tan', 'sri', 'seri', 'toh']);

/** Lineage and royal name prefixes: a name of one of these alone ("YB Tengku Dato' Sri ...") is not a name yet. */
export const NAME_PREFIXES: ReadonlySet<string> = new Set([
  'tengku', 'tunku', 'raja', 'syed', 'sharifah', 'wan', 'nik', 'megat', 'puteri', 'che', 'abang', 'awang', 'dayang', 'mohd', 'muhammad', 'abdul',
]);

/** Lower-case words that may sit between the parts of a Malay, Indian or Dutch name. */
export const NAME_CONNECTORS: ReadonlySet<string> = new Set([
  'bin', 'binti', 'bte', 'bt', 'bt.', 'b.', 'a/l', 'a/p', 'al', 'el', 'van', 'von', 'de', 'der', 'den', 'da', '@',
]);

/** Connectors that by themselves mark a Malay or Indian patronymic name ("Ahmad bin Abdullah"). */
export const PATRONYMIC_CONNECTORS: readonly string[] = ['bin', 'binti', 'bte', 'a/l', 'a/p'];

/** Capitalized words that end a person name: function words, sentence openers and organization words. */
export const NAME_STOPWORDS: ReadonlySet<string> = new Set([
  'the', 'a', 'an', 'and', 'or', 'of', 'in', 'on', 'at', 'to', 'for', 'from', 'by', 'with', 'is', 'was', 'who',
  'said', 'says', 'has', 'will', 'would', 'this', 'that', 'as', 'also', 'but', 'if', 'he', 'she', 'they',
  'dan', 'atau', 'yang', 'di', 'ke', 'dari', 'daripada', 'pada', 'kepada', 'oleh', 'untuk', 'bagi', 'dengan',
  'sebagai', 'selaku', 'telah', 'akan', 'ini', 'itu', 'berkata', 'menurut', 'beliau', 'ialah', 'adalah', 'iaitu',
  'bank', 'berhad', 'bhd', 'bhd.', 'sdn', 'sdn.', 'ltd', 'inc', 'llc', 'corp', 'limited', 'company', 'group',
  'kementerian', 'jabatan', 'suruhanjaya', 'lembaga', 'majlis', 'ministry', 'department', 'university',
  'universiti', 'jalan', 'jln', 'street', 'road', 'malaysia', 'dear', 'yours', 'regards', 'tarikh', 'date',
  'account', 'akaun', 'no', 'no.', 'tel', 'fax', 'email', 'e-mel', 'emel', 'per', 're', 'ref', 'ruj',
  // Title-case heading words that follow a name in event titles ("Tun Ismail Ali Chair Public Lecture")
  'chair', 'lecture', 'public', 'special', 'address', 'scholarship', 'award', 'awards', 'speech', 'memorial',
  'conference', 'prize', 'fund', 'building', 'hall', 'centre', 'center', 'programme', 'program', 'foundation',
  'statement', 'video', 'forum', 'seminar', 'talk', 'dialogue', 'visit', 'keynote', 'remarks', 'interview',
  'click', 'read', 'more', 'please', 'sila', 'klik', 'ucapan', 'syarahan', 'anugerah', 'biasiswa',
  // offices written after a title ("YB Menteri Pertanian"): a portfolio, not a name
  'menteri', 'timbalan', 'ketua', 'pengarah', 'pengerusi', 'presiden', 'setiausaha', 'minister', 'director',
  'chairman', 'president', 'secretary', 'governor', 'gabenor', 'ceo',
]);

/** Legal-form suffixes that end an organization name; longest spellings first. */
export const ORGANIZATION_SUFFIX_PATTERN =
  'Sdn\\.?[ \\t]*Bhd\\.?|SDN\\.?[ \\t]*BHD\\.?|Pte\\.?[ \\t]*Ltd\\.?|PTE\\.?[ \\t]*LTD\\.?|Pty\\.?[ \\t]*Ltd\\.?|' +
  'Co\\.,?[ \\t]*Ltd\\.?|Berhad|BERHAD|Bhd\\.?|BHD\\.?|Incorporated|Inc\\.?|Corporation|Corp\\.?|Ltd\\.?|LTD\\.?|' +
  'Limited|LIMITED|L\\.L\\.C\\.|LLC|LLP|PLC|Plc|GmbH|AG|B\\.V\\.|N\\.V\\.|S\\.A\\.|PLT';

/** Nouns that head an organization name in Malay ("Kementerian Kewangan") or English ("Bank of America"). */
export const ORGANIZATION_HEADS: ReadonlySet<string> = new Set([
  'Bank', 'Kementerian', 'Jabatan', 'Suruhanjaya', 'Lembaga', 'Majlis', 'Perbadanan', 'Agensi', 'Institut',
  'Universiti', 'Mahkamah', 'Koperasi', 'Syarikat', 'Persatuan', 'Yayasan', 'Tabung', 'Polis', 'Dewan',
  'Hospital', 'Kumpulan', 'Pejabat', 'Ministry', 'Department', 'University', 'Institute', 'Commission',
  'Authority', 'Council', 'Agency', 'Association', 'Foundation', 'Court', 'Bureau', 'Federation',
]);

/** Heads that start their name ("Kementerian Kewangan", "Ministry of Finance"): nothing before them belongs to it. */
export const NAME_INITIAL_HEADS: ReadonlySet<string> = new Set([
  'Kementerian', 'Jabatan', 'Suruhanjaya', 'Lembaga', 'Majlis', 'Perbadanan', 'Agensi', 'Institut', 'Universiti',
  'Mahkamah', 'Koperasi', 'Syarikat', 'Persatuan', 'Yayasan', 'Tabung', 'Polis', 'Dewan', 'Hospital', 'Kumpulan',
  'Pejabat',
]);

/** Capitalized words that follow a head noun but are not part of a name ("Bank Statement", "Bank Holidays"). */
export const ORGANIZATION_STOPWORDS: ReadonlySet<string> = new Set([
  'statement', 'statements', 'account', 'accounts', 'card', 'cards', 'holiday', 'holidays', 'rate', 'rates',
  'transfer', 'transfers', 'draft', 'drafts', 'balance', 'details', 'charges', 'penyata', 'akaun', 'the', 'a',
  'an', 'is', 'was', 'has', 'will', 'in', 'on', 'at', 'to', 'by', 'with', 'from', 'as', 'yang', 'di', 'ke',
  'pada', 'oleh', 'telah', 'akan', 'ini', 'itu', 'adalah', 'ialah', 'iaitu', 'kepada', 'untuk', 'bagi',
  'dengan', 'this', 'that', 'said', 'berkata', 'reading', 'release', 'tarikh', 'date', 'page', 'halaman',
  // legal forms end one name, so a walk must not run through them into the next ("X Sdn Bhd and Y Berhad")
  'sdn', 'sdn.', 'bhd', 'bhd.', 'berhad', 'inc', 'inc.', 'ltd', 'ltd.', 'limited', 'llc', 'corp', 'corp.', 'plc',
  // documents, events and laws named after an organization are not the organization
  'act', 'akta', 'bill', 'rang', 'salinan', 'copy', 'schedule', 'jadual', 'meeting', 'meetings', 'mesyuarat',
  'sesi', 'session', 'scholarship', 'award', 'biasiswa', 'anugerah', 'conference', 'persidangan', 'report',
  'laporan', 'annual', 'tahunan', 'portal', 'website', 'sistem', 'system', 'application', 'permohonan', 'notice',
  'notis', 'guidelines', 'garis', 'policy', 'dasar', 'walaupun', 'although', 'visit', 'lawatan', 'taklimat',
  'briefing', 'auditorium', 'sesawang', '©', 'copyright', 'tahun', 'year', 'commemorative', 'coin', 'coins',
  'syiling', 'governor', 'governors', 'gabenor',
]);

/** Lower-case words allowed inside an organization name, never at its start or end. */
export const ORGANIZATION_CONNECTORS: ReadonlySet<string> = new Set(['of', 'and', 'for', '&', 'dan', 'bagi', 'de', 'du']);
/** Walking back from a suffix, "and"/"dan" usually join two names ("Maybank and CIMB Bank Berhad"), so only these. */
export const ORGANIZATION_CONNECTORS_BEFORE: ReadonlySet<string> = new Set(['of', '&', 'for', 'de', 'du']);
/**
 * Walking forward from a head, English "and" joins two names ("Securities Commission and Labuan ... Authority")
 * while Malay "dan" sits inside names ("Jabatan Perbankan Islam dan Takaful").
 */
export const ORGANIZATION_CONNECTORS_AFTER: ReadonlySet<string> = new Set(['of', '&', 'for', 'dan', 'bagi', 'de', 'du']);

/** Function words stripped from the front of a name grown backwards ("The Maybank Berhad" -> "Maybank Berhad"). */
export const LEADING_STOPWORDS: ReadonlySet<string> = new Set([
  'the', 'a', 'an', 'in', 'on', 'at', 'by', 'for', 'from', 'to', 'with', 'and', 'or', 'of', 'as', 'that', 'this',
  'dan', 'atau', 'di', 'ke', 'dari', 'daripada', 'oleh', 'kepada', 'pada', 'bagi', 'untuk', 'dengan', 'iaitu',
  'semalam', 'hari', 'ini', 'itu', 'bahawa', 'attn', 'attention', 'reading', 'dear', 'kepada:', 'our', 'your',
  'all', 'any', 'every', 'four', 'three', 'two', 'one', 'former', 'both', 'when', 'while', 'his', 'her', 'their',
  // Malay function words that title-case headlines capitalize ("Jalan Duta Ditutup", "Tidak Akan Siap")
  'tidak', 'akan', 'kami', 'kita', 'manakala', 'sempena', 'bakal', 'sudah', 'belum', 'masih', 'juga', 'lagi',
  'ditutup', 'dibuka', 'terbakar', 'baru', 'kini', 'selepas', 'sebelum',
]);

/** Closings after which the next name line is the signer. Lower case, matched without regard to case. */
export const SIGNATURE_CLOSINGS: readonly string[] = [
  'yours sincerely', 'yours faithfully', 'yours truly', 'sincerely', 'best regards', 'kind regards', 'regards',
  'yang benar', 'yang ikhlas', 'saya yang menjalankan amanah', 'sekian, terima kasih', 'sekian terima kasih',
];

/** Field labels whose value on the same line is a person's name. */
export const PERSON_LABELS: readonly string[] = [
  'Name', 'Nama', 'Full Name', 'Nama Penuh', 'Account Holder', 'Pemegang Akaun', 'Customer Name', 'Nama Pelanggan',
  'Attn', 'ATTN', 'Attention', 'Contact Person', 'Signed', 'Prepared by', 'Approved by', 'Disediakan oleh',
  'Diluluskan oleh',
];
