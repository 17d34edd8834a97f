#!/usr/bin/env python3
# perfn.py N1 N2 DIV TAG...: instructions per op by function, from the cachegrind outputs
# cg.TAG.N1 and cg.TAG.N2 (written by count.sh): (Ir(N2) - Ir(N1)) / DIV for each function, the
# first TAG the baseline. Prints the total, then each function that differs by 1 or more.
import collections, sys

def load(f):
    d, fn = collections.Counter(), None
    for line in open(f):
        if line.startswith('fn='):
            fn = line[3:].strip()
        elif line[:1].isdigit() and fn:
            p = line.split()
            if len(p) >= 2:
                d[fn] += int(p[1])
    return d

n1, n2, div, tags = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4:]
rs = []
for t in tags:
    a, b = load(f'cg.{t}.{n1}'), load(f'cg.{t}.{n2}')
    rs.append({k: (b[k] - a.get(k, 0)) / div for k in set(a) | set(b)})
print('| function | ' + ' | '.join(tags) + ' |')
print('| --- |' + ' --- |' * len(tags))
print('| total | ' + ' | '.join(f'{sum(r.values()):.1f}' for r in rs) + ' |')
rows = [(k, [r.get(k, 0) for r in rs]) for k in set().union(*rs)]
rows = [x for x in rows if max(abs(v - x[1][0]) for v in x[1]) >= 1]
for k, v in sorted(rows, key=lambda x: -max(abs(y - x[1][0]) for y in x[1])):
    print(f'| `{k}` | ' + ' | '.join(f'{y:.1f}' for y in v) + ' |')
