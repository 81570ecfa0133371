import { describe, expect, it } from 'vitest';
import { dropdownTarget } from '../../src/core/shell/dropdown';

describe('dropdown keys', () => {
  it('Down and Up move through the items and wrap; Home and End jump to the ends', () => {
    expect(dropdownTarget('ArrowDown', -1, 3)).toBe(0);
    expect(dropdownTarget('ArrowUp', -1, 3)).toBe(2);
    expect(dropdownTarget('ArrowDown', 1, 3)).toBe(2);
    expect(dropdownTarget('ArrowDown', 2, 3)).toBe(0);
    expect(dropdownTarget('ArrowUp', 0, 3)).toBe(2);
    expect(dropdownTarget('Home', 2, 3)).toBe(0);
    expect(dropdownTarget('End', 0, 3)).toBe(2);
  });

  it('leaves other keys and empty lists alone', () => {
    expect(dropdownTarget('Enter', 0, 3)).toBeNull();
    expect(dropdownTarget('a', 0, 3)).toBeNull();
    expect(dropdownTarget('ArrowDown', -1, 0)).toBeNull();
  });
});
