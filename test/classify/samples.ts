// Hand-written English and Malay documents for classification tests (written for these tests; the invoice
// follows the layout of the AWS invoice in the shared corpus without copying it). Not a test file itself.

export const INVOICE_ENGLISH = `Cloud Services Invoice
Account number: 296664039561
Bill to Address: ATTN: Example Labs Limited, Yuen Long, HK
Invoice Summary
Invoice Number: 42183017
Invoice Date: August 3, 2014
TOTAL AMOUNT DUE ON August 3, 2014   $4.11
This invoice is for the billing period July 1 - July 31, 2014.
Charges $4.11  Credits $0.00  Tax $0.00  Total for this invoice $4.11
Data Transfer charges $0.01, Compute charges $1.87, Storage charges $2.22`;

export const INVOICE_MALAY = `INVOIS CUKAI
No. Invois: INV-2024-0001   Tarikh Invois: 5 Mac 2024
Kepada: Syarikat ABC Sdn. Bhd., Jalan Ampang, 50450 Kuala Lumpur
Perkara      Kuantiti   Harga Seunit   Jumlah
Kertas A4    10         RM12.00        RM120.00
Jumlah perlu dibayar: RM120.00 dalam tempoh 30 hari.`;

export const LETTER_MALAY = `Ruj. Kami: JPK/600-1/3
Tarikh: 12 Januari 2021

Encik Ahmad bin Abdullah,
No. 5, Jalan Mawar, 43000 Kajang, Selangor.

Tuan,

PERKARA: PERMOHONAN PENANGGUHAN BAYARAN

Dengan hormatnya saya merujuk kepada perkara di atas. Permohonan tuan telah diluluskan.

Sekian, terima kasih.

Yang benar,

(SITI AMINAH BINTI HASSAN)
Pengurus Cawangan`;

export const LETTER_ENGLISH = `Dear Sir or Madam,

We refer to your letter of 3 March 2021 regarding your savings account. We are pleased to confirm the change.
Please find enclosed the updated terms.

Yours sincerely,

Mary Anne Walker
Branch Manager`;

export const FORM_MALAY = `BORANG PERMOHONAN MEMBUKA AKAUN SIMPANAN
Sila isi dalam HURUF BESAR dan tandakan (/) pada kotak yang berkenaan.
Nama Pemohon: ____________  No. K/P: ____________  Tarikh Lahir: ________
Tandatangan Pemohon: ____________
UNTUK KEGUNAAN PEJABAT SAHAJA`;

export const FORM_ENGLISH = `APPLICATION FORM - CURRENT ACCOUNT
Please complete this form in BLOCK LETTERS. Tick where applicable.
Applicant name: ________  Date of birth: ________
Signature of applicant: ________
For office use only`;

export const RECEIPT_MALAY = `RESIT RASMI
No. Resit: R-000123
Diterima daripada: Puan Rosnah binti Ali
Jumlah dibayar: RM250.00 (tunai)
Bayaran diterima untuk yuran keahlian 2024. Terima kasih.`;

export const RECEIPT_ENGLISH = `OFFICIAL RECEIPT  Receipt No: 88012
Received from: John Smith
Amount paid: USD 45.00 (cash)
Payment received with thanks. Thank you for your payment.`;

export const CONTRACT_MALAY = `PERJANJIAN PERKHIDMATAN
Perjanjian ini dibuat pada 1 Jun 2022 antara Syarikat ABC Sdn. Bhd. dan Syarikat XYZ Berhad (pihak-pihak).
BAHAWASANYA pihak pertama bersetuju menyediakan perkhidmatan tertakluk kepada terma dan syarat berikut.
Fasal 1: Tempoh kontrak. Fasal 2: Penamatan perjanjian.`;

export const CONTRACT_ENGLISH = `SERVICE AGREEMENT
This Agreement is made between Acme Inc. (hereinafter "the Provider") and Beta Ltd (the parties).
WHEREAS the Provider agrees to supply services subject to the terms and conditions below.
Clause 1: Term. Clause 2: Termination. Clause 3: Governing law.
IN WITNESS WHEREOF the parties have signed this Agreement on the effective date.`;

export const STATEMENT_MALAY = `PENYATA AKAUN
Nombor Akaun: 1234-5678-9012   Jenis: Akaun Simpanan
Tarikh Transaksi   Keterangan        Pengeluaran   Deposit     Baki
01/03/2024         Baki awal                                    RM1,000.00
05/03/2024         Pindahan          RM200.00                  RM800.00
31/03/2024         Baki akhir                                   RM800.00`;

export const REPORT_MALAY = `LAPORAN TAHUNAN 2023
Ringkasan Eksekutif
Laporan ini membentangkan dapatan utama dan analisis prestasi kewangan bagi tahun 2023.
Kesimpulan dan cadangan dibentangkan dalam bab terakhir.`;

export const REPORT_ENGLISH = `ANNUAL REPORT 2023
Executive Summary
This report presents the key findings and an analysis of financial performance.
Methodology, conclusion and recommendations follow in the final chapter.`;

export const NOTICE_MALAY = `NOTIS AWAM
Dengan ini diberitahu bahawa pejabat akan ditutup pada 31 Disember 2010.
Orang ramai dinasihatkan untuk mengambil makluman. Tarikh siaran: 20 Disember 2010.`;
