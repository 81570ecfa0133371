// npm run check:circles — import circles among the server's modules (type-only imports count too: a
// circle of types is still two modules that cannot be read one without the other). Exits 1 on any.
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(process.argv[2] ?? 'src/server');
const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) walk(full);
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) files.push(full);
  }
};
walk(root);

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
const resolve = (from, spec) => {
  if (!spec.startsWith('.')) return null;
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile() && candidate.startsWith(root)) return candidate;
  }
  return null;
};
const edges = new Map(files.map((f) => {
  const text = readFileSync(f, 'utf8');
  const out = new Set();
  for (const m of text.matchAll(IMPORT)) {
    const target = resolve(f, m[1] ?? m[2]);
    if (target) out.add(target);
  }
  return [f, out];
}));

// Tarjan's strongly connected components: every component of more than one module is a circle.
let index = 0;
const stack = [];
const state = new Map();
const circles = [];
const visit = (v) => {
  state.set(v, { index, low: index, onStack: true });
  index++;
  stack.push(v);
  for (const w of edges.get(v) ?? []) {
    if (!state.has(w)) {
      visit(w);
      state.get(v).low = Math.min(state.get(v).low, state.get(w).low);
    } else if (state.get(w).onStack) state.get(v).low = Math.min(state.get(v).low, state.get(w).index);
  }
  if (state.get(v).low === state.get(v).index) {
    const component = [];
    let w;
    do {
      w = stack.pop();
      state.get(w).onStack = false;
      component.push(w);
    } while (w !== v);
    if (component.length > 1) circles.push(component);
  }
};
for (const f of files) if (!state.has(f)) visit(f);

const rel = (f) => path.relative(process.cwd(), f);
for (const component of circles) {
  console.log(`circle of ${component.length}:`);
  const inside = new Set(component);
  for (const f of component.sort()) console.log(`  ${rel(f)} → ${[...edges.get(f)].filter((t) => inside.has(t)).map(rel).join(', ')}`);
}
console.log(circles.length ? `${circles.length} import circle(s) in ${rel(root)}` : `no import circles in ${rel(root)} (${files.length} modules)`);
process.exitCode = circles.length ? 1 : 0;
