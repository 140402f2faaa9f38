import { describe, expect, it } from 'vitest';
import { formatAmount, formatMoney, isMoney } from './money.js';

describe('formatAmount', () => {
  it('inserts the decimal point into the integer digits', () => {
    expect(formatAmount(123456, 2)).toBe('1,234.56');
    expect(formatAmount(100000, 2)).toBe('1,000.00');
    expect(formatAmount(5, 2)).toBe('0.05');
    expect(formatAmount(0, 2)).toBe('0.00');
    expect(formatAmount(-5, 2)).toBe('-0.05');
    expect(formatAmount(-123456789, 2)).toBe('-1,234,567.89');
    expect(formatAmount(7, 0)).toBe('7');
    expect(formatAmount(1234, 0)).toBe('1,234');
    expect(formatAmount(1, 8)).toBe('0.00000001');
    expect(formatAmount(-0, 2)).toBe('0.00');
  });

  it('is exact past 2^53 when given the digits (no float arithmetic)', () => {
    expect(formatAmount('9007199254740993', 2)).toBe('90,071,992,547,409.93');
    expect(formatAmount(12345678901234567890n, 8)).toBe('123,456,789,012.34567890');
    expect(formatAmount('-000120', 2)).toBe('-1.20');
  });

  it('refuses what is not an exact integer', () => {
    expect(() => formatAmount(1.5, 2)).toThrow(RangeError);
    expect(() => formatAmount(2 ** 60, 2)).toThrow(RangeError);
    expect(() => formatAmount('12.5', 2)).toThrow(RangeError);
    expect(() => formatAmount(1, -1)).toThrow(RangeError);
  });

  it('formats the API money objects with their currency', () => {
    const money = { amount: 123456, currency: { code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 } };
    expect(isMoney(money)).toBe(true);
    expect(formatMoney(money)).toBe('1,234.56 USD');
    expect(formatMoney({ amount: 1500, currency: { code: 'JPY', decimals: 0 } })).toBe('1,500 JPY');
    expect(isMoney({ amount: 1.5, currency: { code: 'USD', decimals: 2 } })).toBe(false);
    expect(isMoney({ amount: 1, currency: 'USD' })).toBe(false);
  });
});
