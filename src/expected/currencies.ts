/**
 * ISO 4217 alphabetic codes: List One as published by the maintenance agency (SIX) in 2025,
 * fund and precious-metal codes included, plus codes withdrawn since 2020 that still appear on
 * documents people evaluate (ANG, CUC, HRK, SLL, ZWL). Node's Intl list is not used because it
 * omits fund codes and depends on the ICU build.
 */
export const ISO_4217_CODES: readonly string[] = Object.freeze(
  (
    'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP ' +
    'BYN BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB ' +
    'EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HRK HTG HUF IDR ILS INR IQD IRR ISK JMD JOD ' +
    'JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU ' +
    'MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD ' +
    'RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY ' +
    'TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES VND VUV WST XAF XAG XAU XBA XBB XBC XBD XCD ' +
    'XCG XDR XOF XPD XPF XPT XSU XTS XUA XXX YER ZAR ZMW ZWG ZWL'
  ).split(' '),
);

const CODE_SET: ReadonlySet<string> = new Set(ISO_4217_CODES);

export function isCurrencyCode(code: unknown): code is string {
  return typeof code === 'string' && CODE_SET.has(code);
}

/**
 * Currency symbols and prefixes that name exactly one currency. A bare `$` or `¥` is shared by
 * several currencies: it resolves to the default currency when that one uses the symbol, else
 * to the most common reading (USD, JPY), as people write amounts in a spreadsheet.
 */
export const UNAMBIGUOUS_SYMBOLS: Readonly<Record<string, string>> = Object.freeze({
  '€': 'EUR',
  '£': 'GBP',
  '₹': 'INR',
  '₩': 'KRW',
  '₽': 'RUB',
  '₺': 'TRY',
  '₪': 'ILS',
  '₫': 'VND',
  '₴': 'UAH',
  '₦': 'NGN',
  '฿': 'THB',
  '₱': 'PHP',
  '₡': 'CRC',
  '₲': 'PYG',
  '₸': 'KZT',
  '₼': 'AZN',
  '₾': 'GEL',
  zł: 'PLN',
  'US$': 'USD',
  'C$': 'CAD',
  'CA$': 'CAD',
  'A$': 'AUD',
  'AU$': 'AUD',
  'NZ$': 'NZD',
  'HK$': 'HKD',
  'S$': 'SGD',
  'R$': 'BRL',
  'MX$': 'MXN',
});

export const SHARED_SYMBOLS: Readonly<Record<string, { fallback: string; users: readonly string[] }>> = Object.freeze({
  $: { fallback: 'USD', users: ['USD', 'CAD', 'AUD', 'NZD', 'HKD', 'SGD', 'MXN', 'ARS', 'CLP', 'COP', 'TWD', 'BSD', 'BBD', 'BMD', 'BND', 'BZD', 'FJD', 'GYD', 'JMD', 'KYD', 'LRD', 'NAD', 'SBD', 'SRD', 'TTD', 'XCD', 'UYU', 'CUP', 'DOP'] },
  '¥': { fallback: 'JPY', users: ['JPY', 'CNY'] },
});
