// A small hand-written list of Malay words the affix rules alone would get wrong: roots that look prefixed
// (terima, pertama), roots hidden by nasal assimilation (m/n/k/ny/r-initial), roots ending like a suffix
// (makan, masalah), lexicalized banking nouns (penyata). A tie-breaker for the stemmer, never a full dictionary.

const LOOKALIKE_ROOTS = `
terima terus teruk terang ternak teras terap tertib terjemah terbit terowong
perlu perut perang perak peri pergi perisai percaya pertama peringkat perintah peristiwa perempuan peta
persen perdana perenggan
berita berani beruang berus bersih berat beras berhala berkat berahi
meriah merana melayu melaka menteri mentega menara merdeka mesra mewah meja merah mesin mesej mesyuarat
menantu mentah
pelangi pelita pelik pelan pena penat pendek penyu pentas pensel peluang pemuda pelbagai pelancong
kepala keluarga kereta kelapa keliling kemeja kerbau ketam keju kelas kenduri kertas kecuali kemudian
kedai kekal kelab keladi kelompok kemas kerusi kesal ketua kerajinan kejora
sedia selamat sekolah sejarah selesai senarai seluar selasa senja semut segar sebab segera sempena
sempadan seni senyap sejuk sedar sedap sedikit sekarang selalu seluruh semangat sembilan sendiri
sentiasa sepuluh serius sesi setia sewa sebelas syarikat syarat
dinding dinar dirham diri diam dunia dingin
masalah sekolah salah wilayah jumlah istilah perintah langkah nikah ampun kaum
makan bukan tekan pekan ikan jalan teman taman bulan tuhan badan lapan hutan lawan ladang
`;

/** One-syllable roots: they break the two-syllable rule, so affixed forms reach them only through this list. */
const MONOSYLLABIC_ROOTS = `
wang cat bom sah cas cek bank lap pam bor cop tin kon zon gol
`;

const NASAL_AMBIGUOUS_ROOTS = `
makan minta masak minum mohon milik masuk mandi main mula maaf malu mati mimpi marah minat musnah mampu
mudah muat muncul miskin mesti mahal malam mata muka mulut murah muzik
nanti nilai nikah nasihat nafi nyata nyanyi nyala nyawa nama naik nasib
kenal kena kira kata kumpul kutip kurang kawal kaji keluar kembang kesan kuasa kemas kejar kunci kongsi
kosong kupas kemuka kait kalah kandung kembali kerja kendali kukuh kurung kunjung kecil kenang kelola kuat
kurnia keliru kemaskini kikis kawin kubur kupas kecam kekang kerah kuat kutuk kelas kira kena
rasa renang runding rehat ragam rumah rokok rosak rakam rancang rekod rugi rujuk rayu ramal ringkas
`;

const SUFFIX_AMBIGUOUS_ROOTS = `
harga suka serta cinta ketua rasa kuasa guna beri beli cari jadi isi uji ganti hadir hadap hampir hormat
pakai nilai sampai capai selesai mulai pandai rantai cerai lalai andai damai tunai urai sungai pantai
tinggal jual asal modal gagal amal soal bantal kenal kekal
tindak masak tunggak tembak letak rosak masuk duduk naik baik balik tarik tolak gerak bentuk jejak sorak tegak
bayar simpan pinjam potong tuntut pindah pulang urus ubah tukar tambah hapus batal tolak dapat buat
capai tetap tentu lapor lampir ikut jamin lindung niaga usaha ajar baca tulis dengar lihat pilih tunggu
hubung sambung henti akhir habis tamat catat daftar semak sah lulus untung cukai bank kredit debit
kaji uji bahagi hari jadi cari lari puji tiru beri ganti bukti
ramai badai kedai tupai bangkai serai semai belai gulai tirai abai helai lambai rangkai gapai cerai
makna model minyak musuh mahkota kasih kenyang kandang kapit rinci peduli ratus didik benar suai orang buah
menang manfaat teroka periksa belah lelah
penjara pejabat penghulu pelawa
`;

/** Lexicalized derived nouns of banking text that must not collapse into a common verb (pendapatan is not dapat). */
const LEXICALIZED_NOUNS = `
penyata pelanggan pendapatan pegawai pengarah kerajaan persatuan peribahasa perkara selatan teladan peran
pasukan peribadi percuma tandatangan disember majalah sukan
`;

function words(block: string): string[] {
  return block.split(/\s+/).filter((w) => w.length > 0);
}

/** Roots the stemmer prefers whenever one of its candidate analyses produces them. */
export const MALAY_KNOWN_ROOTS: ReadonlySet<string> = new Set([
  ...words(LOOKALIKE_ROOTS),
  ...words(NASAL_AMBIGUOUS_ROOTS),
  ...words(SUFFIX_AMBIGUOUS_ROOTS),
  ...words(MONOSYLLABIC_ROOTS),
  ...words(LEXICALIZED_NOUNS),
]);

/** Forms whose root no regular affix rule reaches (pel-/bel- before ajar, ke-...-i around tahu). */
export const MALAY_IRREGULAR_FORMS: ReadonlyMap<string, string> = new Map([
  ['pelajar', 'ajar'], ['pelajaran', 'ajar'], ['belajar', 'ajar'], ['mempelajari', 'ajar'],
  ['dipelajari', 'ajar'], ['pembelajaran', 'ajar'], ['berpelajaran', 'ajar'], ['pelajarnya', 'ajar'],
  ['pengetahuan', 'tahu'], ['mengetahui', 'tahu'], ['diketahui', 'tahu'], ['ketahui', 'tahu'],
  ['berpengetahuan', 'tahu'], ['bekerja', 'kerja'], ['pekerja', 'kerja'], ['pekerjaan', 'kerja'],
  ['bekerjasama', 'kerjasama'],
]);
