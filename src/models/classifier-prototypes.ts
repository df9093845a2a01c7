// The built-in keyword prototypes: English and Malay phrases, with weights, that mark common business
// document kinds. Pure data in the same shape as a CLASSIFIER_MODEL_FILE's categories; no scoring here.

export interface PrototypeSpec {
  /** Other names an operator may give the category in ALLOWED_CATEGORIES ("statement", "penyata"). */
  aliases?: readonly string[];
  keywords: Readonly<Record<string, number>>;
}

export const BUILTIN_PROTOTYPES: Readonly<Record<string, PrototypeSpec>> = {
  bank_statement: {
    aliases: ['statement', 'account_statement', 'penyata', 'penyata_bank', 'penyata_akaun'],
    keywords: {
      'bank statement': 4, 'account statement': 4, 'statement of account': 4, 'statement period': 2,
      'opening balance': 3, 'closing balance': 3, 'balance brought forward': 3, 'balance carried forward': 3,
      'available balance': 2, 'ledger balance': 2, 'withdrawal': 1.5, 'withdrawals': 1.5, 'debit': 1, 'credit': 0.5,
      'transaction date': 2, 'value date': 2, 'account number': 1, 'iban': 1.5, 'mt940': 4,
      // SWIFT MT940 field tags survive tokenization as words (":60F:" -> "60f")
      '28c': 3, '60f': 3, '62f': 3, '60m': 2, '62m': 2,
      'penyata akaun': 4, 'penyata bank': 4, 'baki awal': 3, 'baki akhir': 3, 'baki': 1, 'pengeluaran': 1,
      'tarikh transaksi': 2, 'nombor akaun': 1, 'no akaun': 1,
    },
  },
  invoice: {
    aliases: ['bill', 'tax_invoice', 'invois'],
    keywords: {
      invoice: 3, 'tax invoice': 4, 'invoice number': 4, 'invoice no': 4, 'invoice date': 3, 'amount due': 3,
      'total due': 3, 'balance due': 3, 'due date': 2, 'bill to': 3, 'billing period': 2, 'payment terms': 2,
      subtotal: 2, 'sub total': 2, vat: 1, gst: 1, sst: 1, qty: 1.5, 'unit price': 2, charges: 1,
      invois: 3, 'invois cukai': 4, 'no invois': 4, 'tarikh invois': 3, 'jumlah perlu dibayar': 3,
      'harga seunit': 2, kuantiti: 1,
    },
  },
  receipt: {
    aliases: ['resit', 'payment_receipt'],
    keywords: {
      receipt: 3, 'official receipt': 4, 'receipt no': 4, 'payment received': 3, 'received from': 2,
      'amount paid': 3, paid: 1, cash: 1, 'thank you for your payment': 3, 'thank you for shopping': 3,
      resit: 3, 'resit rasmi': 4, 'no resit': 4, 'diterima daripada': 3, 'jumlah dibayar': 3,
      'bayaran diterima': 3, tunai: 1,
    },
  },
  letter: {
    aliases: ['surat', 'correspondence'],
    keywords: {
      'dear sir': 3, 'dear madam': 3, dear: 1.5, 'yours sincerely': 4, 'yours faithfully': 4, sincerely: 1.5,
      'kind regards': 2, 'best regards': 2, 'we refer to': 2, enclosed: 1, letter: 1,
      'tuan puan': 2, 'yang benar': 4, 'yang ikhlas': 3, 'dengan hormatnya': 4, surat: 1.5,
      'sekian terima kasih': 3, 'rujukan kami': 2, 'ruj kami': 2, 'ruj tuan': 2, 'saya yang menjalankan amanah': 4,
    },
  },
  form: {
    aliases: ['borang', 'application_form'],
    keywords: {
      form: 2, 'application form': 4, 'please complete': 2, 'please fill': 2, 'fill in': 1.5, signature: 1.5,
      'date of birth': 2, applicant: 2, 'for office use': 3, 'for official use': 3, 'block letters': 3,
      'capital letters': 2, borang: 3, 'borang permohonan': 4, 'sila isi': 3, tandatangan: 1.5, pemohon: 2,
      'tarikh lahir': 2, 'untuk kegunaan pejabat': 3, 'huruf besar': 2, tandakan: 1.5,
    },
  },
  contract: {
    aliases: ['agreement', 'perjanjian', 'kontrak'],
    keywords: {
      agreement: 2, 'this agreement': 3, contract: 2, hereinafter: 3, hereby: 1.5, whereas: 3, parties: 2,
      'terms and conditions': 2, 'in witness whereof': 4, 'governing law': 3, termination: 1.5, indemnify: 2,
      clause: 1.5, 'effective date': 2, perjanjian: 3, 'perjanjian ini': 3, kontrak: 2, 'pihak pihak': 2,
      'terma dan syarat': 2, bahawasanya: 3, penamatan: 1.5, fasal: 1.5,
    },
  },
  notice: {
    aliases: ['notis', 'announcement', 'pengumuman', 'press_release', 'circular', 'public_notice'],
    keywords: {
      notice: 3, 'public notice': 4, 'notice is hereby given': 5, announcement: 2, 'press release': 3,
      'media release': 3, 'release date': 4, 'for immediate release': 3, circular: 2, notification: 2,
      'the public is advised': 3, 'members of the public': 2, embargo: 2, 'not for publication': 2, alert: 1, warning: 1,
      notis: 3, 'notis awam': 4, makluman: 2, pengumuman: 2, 'kenyataan media': 3, 'siaran media': 3,
      'tarikh siaran': 4, pekeliling: 2, dimaklumkan: 2, 'orang ramai': 2, 'dengan ini diberitahu': 4, amaran: 1,
    },
  },
  report: {
    aliases: ['laporan'],
    keywords: {
      report: 2, 'annual report': 4, 'executive summary': 3, findings: 2, analysis: 1, conclusion: 1.5,
      recommendations: 2, methodology: 2, 'key findings': 3, laporan: 3, 'laporan tahunan': 4,
      'ringkasan eksekutif': 3, dapatan: 2, kesimpulan: 1.5, cadangan: 1.5, analisis: 1,
    },
  },
  memo: {
    aliases: ['memorandum', 'memo_dalaman'],
    keywords: { memo: 3, memorandum: 3, 'internal memo': 4, from: 0.5, to: 0.3, cc: 2, subject: 1, 'memo dalaman': 4, perkara: 1 },
  },
  payslip: {
    aliases: ['salary_slip', 'pay_slip', 'slip_gaji'],
    keywords: {
      payslip: 4, 'pay slip': 4, 'salary slip': 4, 'gross pay': 3, 'net pay': 3, 'basic salary': 3, epf: 1.5,
      socso: 1.5, 'income tax': 1, deductions: 2, 'slip gaji': 4, 'gaji pokok': 3, 'gaji bersih': 3, potongan: 2,
      kwsp: 1.5, perkeso: 1.5, pcb: 1.5,
    },
  },
  purchase_order: {
    aliases: ['po', 'pesanan_belian'],
    keywords: {
      'purchase order': 4, 'po number': 4, 'po no': 4, 'ship to': 2, 'delivery date': 2, supplier: 1.5, vendor: 1.5,
      'pesanan belian': 4, pembekal: 1.5, 'tarikh penghantaran': 2,
    },
  },
  resume: {
    aliases: ['cv', 'curriculum_vitae', 'resume_cv'],
    keywords: {
      resume: 3, 'curriculum vitae': 4, 'work experience': 3, education: 1.5, skills: 1.5, references: 1,
      'career objective': 3, 'pengalaman kerja': 3, pendidikan: 1.5, kemahiran: 1.5, 'maklumat peribadi': 2,
    },
  },
  academic_paper: {
    aliases: ['paper', 'research_paper', 'article', 'kertas_kerja'],
    keywords: {
      abstract: 3, introduction: 1, 'related work': 3, methodology: 2, 'et al': 3, references: 1.5,
      conclusion: 1, 'this paper': 3, journal: 2, doi: 2, abstrak: 3, pengenalan: 1, metodologi: 2,
      rujukan: 1, 'kajian ini': 3, 'kertas kerja': 3, jurnal: 2,
    },
  },
};
