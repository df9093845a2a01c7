// Well-known organizations and their common acronyms (Malaysian regulators, agencies, banks) that carry
// no legal suffix or head noun in running text. Pure data; ambiguous acronyms and brand names that are
// also ordinary words ("SC", "BIS", "Apple", "Amazon") are left out so ordinary words are never reported.

export const KNOWN_ORGANIZATIONS: readonly string[] = [
  'Bank Negara Malaysia', 'BNM', 'Securities Commission Malaysia', 'Suruhanjaya Sekuriti Malaysia', 'Suruhanjaya Sekuriti',
  'Bursa Malaysia',
  'Lembaga Hasil Dalam Negeri', 'LHDN', 'LHDNM', 'Inland Revenue Board', 'Kumpulan Wang Simpanan Pekerja', 'KWSP',
  'EPF', 'Employees Provident Fund', 'PERKESO', 'SOCSO', 'Suruhanjaya Syarikat Malaysia', 'SSM',
  'Companies Commission of Malaysia', 'Polis Diraja Malaysia', 'PDRM', 'Royal Malaysia Police', 'SPRM', 'MACC',
  'Malaysian Anti-Corruption Commission', 'JAKIM', 'Khazanah Nasional', 'Permodalan Nasional Berhad', 'PNB',
  'Tabung Haji', 'Lembaga Tabung Haji', 'Maybank', 'CIMB', 'RHB', 'AmBank', 'Public Bank', 'Hong Leong Bank',
  'Bank Islam', 'Bank Rakyat', 'Bank Simpanan Nasional', 'BSN', 'Agrobank', 'Affin Bank', 'Alliance Bank',
  'OCBC', 'HSBC', 'UOB', 'Standard Chartered', 'Citibank', 'Petronas', 'Tenaga Nasional', 'Telekom Malaysia',
  'AirAsia', 'Malaysia Airlines', 'Amanah Saham Nasional', 'ASNB', 'Perbadanan Insurans Deposit Malaysia', 'PIDM',
  'Jabatan Perangkaan Malaysia', 'DOSM', 'Department of Statistics Malaysia', 'IMF', 'International Monetary Fund',
  'World Bank', 'Bank for International Settlements', 'ASEAN', 'Amazon Web Services', 'Microsoft', 'Flipkart',
];
