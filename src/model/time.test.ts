import { describe, expect, it } from 'vitest';
import { isRfc3339Time } from './time.js';

describe('RFC 3339 times', () => {
  it.each(['2024-01-31', '2024-02-29T00:00:00Z', '2024-01-31T23:59:59.5+02:00', '2021-06-01T00:00Z'])('takes %s', (t) =>
    expect(isRfc3339Time(t)).toBe(true),
  );
  // a day the calendar does not have: Date.parse would move it without a word
  it.each([
    '2025-02-30',
    '2025-02-29T00:00:00Z',
    '2024-13-01',
    '2024-04-31T00:00:00Z',
    '2024-01-01T24:00:00Z',
    'yesterday',
    '2024-1-1',
    '',
  ])('refuses %j', (t) => expect(isRfc3339Time(t)).toBe(false));
});
