// English and Malay function words that carry no retrieval signal in the sparse lane.
// Never list a word that is a content word in the other language or in banking text (kata laluan, baki).

export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set([
  'a', 'about', 'above', 'after', 'again', 'against', 'all', 'also', 'am', 'among', 'an', 'and', 'any',
  'are', 'as', 'at', 'be', 'because', 'been', 'before', 'being', 'below', 'between', 'both', 'but', 'by',
  'can', 'cannot', 'could', 'did', 'do', 'does', 'doing', 'done', 'down', 'during', 'each', 'either',
  'else', 'etc', 'ever', 'few', 'for', 'from', 'further', 'had', 'has', 'have', 'having', 'he', 'her',
  'here', 'hers', 'herself', 'him', 'himself', 'his', 'how', 'however', 'i', 'if', 'in', 'into', 'is',
  'it', 'its', 'itself', 'just', 'may', 'me', 'might', 'more', 'most', 'must', 'my', 'myself', 'neither',
  'nor', 'of', 'off', 'on', 'once', 'only', 'or', 'other', 'others', 'ought', 'our', 'ours', 'ourselves',
  'out', 'over', 'own', 'same', 'shall', 'she', 'should', 'so', 'some', 'such', 'than', 'that', 'the',
  'their', 'theirs', 'them', 'themselves', 'then', 'there', 'therefore', 'these', 'they', 'this', 'those',
  'though', 'through', 'thus', 'to', 'too', 'under', 'until', 'up', 'upon', 'us', 'very', 'via', 'was',
  'we', 'were', 'what', 'when', 'where', 'whereas', 'whether', 'which', 'while', 'who', 'whom', 'whose',
  'why', 'will', 'with', 'within', 'without', 'would', 'yet', 'you', 'your', 'yours', 'yourself',
  'yourselves', 'cant', 'dont', 'doesnt', 'didnt', 'isnt', 'arent', 'wasnt', 'werent', 'wont', 'wouldnt',
  'shouldnt', 'couldnt', 'hasnt', 'havent', 'hadnt', 'im', 'ive', 'youre', 'theyre', 'thats',
  'anyone', 'anything', 'someone', 'something', 'everyone', 'everything', 'nobody', 'nothing',
]);

export const MALAY_STOPWORDS: ReadonlySet<string> = new Set([
  'ada', 'adakah', 'adalah', 'agak', 'agar', 'akan', 'aku', 'anda', 'antara', 'apa', 'apabila', 'apakah',
  'atas', 'atau', 'bagai', 'bagaimana', 'bagi', 'bahawa', 'beberapa', 'belum', 'berapa', 'boleh', 'bukan',
  'dahulu', 'dalam', 'dan', 'dapat', 'dari', 'daripada', 'demikian', 'dengan', 'di', 'dia', 'dimana',
  'hanya', 'hendak', 'hingga', 'ia', 'ialah', 'iaitu', 'bila', 'bilakah', 'kenapa', 'mengapa', 'mana',
  'manakah', 'siapa', 'siapakah', 'bagaimanakah', 'berapakah', 'ini', 'itu', 'jadi', 'jika', 'juga', 'kalau',
  'kami', 'kamu', 'kan', 'ke', 'kepada', 'kerana', 'ketika', 'kita', 'lagi', 'lah', 'mahu',
  'maka', 'malah', 'manakala', 'masih', 'mengenai', 'mereka', 'mungkin', 'namun', 'nya', 'oleh', 'pada',
  'paling', 'pernah', 'pula', 'pun', 'saja', 'sahaja', 'sama', 'sambil', 'sangat', 'saya', 'sebagai',
  'sebelum', 'seberapa', 'sedang', 'sejak', 'selain', 'selama', 'selepas', 'semasa', 'sementara', 'semua', 'seperti',
  'serta', 'sesuatu', 'setelah', 'setiap', 'sini', 'situ', 'supaya', 'sudah', 'tanpa', 'telah', 'terhadap',
  'tersebut', 'tetapi', 'tiada', 'tidak', 'untuk', 'walaupun', 'yakni', 'yang',
]);

/** True when the (normalized) word is an English or a Malay function word. */
export function isStopword(word: string): boolean {
  return ENGLISH_STOPWORDS.has(word) || MALAY_STOPWORDS.has(word);
}
