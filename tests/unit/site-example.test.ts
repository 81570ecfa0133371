import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { CompanySchema, SiteSchema } from '../../src/shared/site.schema';

const example = parseYaml(readFileSync('docs/site-example.yaml', 'utf8')) as Record<string, unknown>;

describe('docs/site-example.yaml (the editors\' guide example)', () => {
  it('is a valid site', () => {
    const result = v.safeParse(SiteSchema, example);
    expect(result.success ? [] : result.issues.map((i) => `${v.getDotPath(i)}: ${i.message}`)).toEqual([]);
  });
  it('shows and explains every field of the site schema', () => {
    expect(Object.keys(SiteSchema.entries).filter((k) => !(k in example))).toEqual([]);
    expect(Object.keys(CompanySchema.entries).filter((k) => !(k in (example.company as object)))).toEqual([]);
    const text = readFileSync('docs/site-example.yaml', 'utf8').split('\n');
    // Each top-level field has a comment above it, or follows a field of its group that has one.
    const above = (i: number) => text.slice(0, i).reverse().find((l) => !l.startsWith(' ')) ?? '';
    const uncommented = text.flatMap((line, i) => (/^[a-z_]+:/.test(line) && !/^(#|[a-z_]+:)/.test(above(i)) ? [line] : []));
    expect(uncommented).toEqual([]);
  });
});
