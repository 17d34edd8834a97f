# cg.py split DIR N1 N2 OPS V...: per-op instructions of each V ((Ir(N2) - Ir(N1)) / OPS, from the
#   cachegrind files DIR/cg.V.N1 and DIR/cg.V.N2): total, the timer set's functions, the
#   scheduler's wake paths, the rest.
# cg.py fn DIR N1 N2 OPS A B [PATTERN]: per-op instructions of A and B, total, the sum over the
#   functions matching PATTERN (a regexp), then the functions that differ most.
import collections, re, sys

timer_set = re.compile(r'runtime\.\(\*timers?\)\.|runtime\.\(\*timerWheel\)\.|runtime\.\(\*timer\)\.(wheel|lockOwn)')
wake = re.compile(r'runtime\.(wakep|wakeNetPoller|pidleget|pidlegetSpinning|startm|netpollBreak|notewakeup|futexwakeup|mget|runqempty)')

def load(path):
    c = collections.Counter(); fn = None
    for line in open(path):
        if line.startswith('fn='): fn = line[3:].strip(); continue
        if line[:1].isdigit():
            parts = line.split()
            if len(parts) >= 2: c[fn] += int(parts[1])
    return c

def per_op(d, v, n1, n2, ops):
    x = load(f'{d}/cg.{v}.{n1}'); y = load(f'{d}/cg.{v}.{n2}')
    return {k: (y[k] - x[k]) / ops for k in set(x) | set(y)}

mode, d, n1, n2, ops = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5])
if mode == 'split':
    for v in sys.argv[6:]:
        p = per_op(d, v, n1, n2, ops)
        t = sum(p.values()); a = sum(w for k, w in p.items() if timer_set.search(k))
        b = sum(w for k, w in p.items() if wake.search(k))
        print('%-8s total %7.1f  timer set %6.1f  wake paths %6.1f  rest %7.1f' % (v, t, a, b, t - a - b))
else:
    a, b = sys.argv[6], sys.argv[7]
    A = per_op(d, a, n1, n2, ops); B = per_op(d, b, n1, n2, ops)
    ta, tb = sum(A.values()), sum(B.values())
    print('total %s %.1f  %s %.1f  %+.2f%%' % (a, ta, b, tb, 100 * (tb - ta) / ta))
    if len(sys.argv) > 8:
        pat = re.compile(sys.argv[8])
        sa = sum(v for k, v in A.items() if pat.search(k)); sb = sum(v for k, v in B.items() if pat.search(k))
        print('matching %s: %s %.1f (%.2f%%)  %s %.1f (%.2f%%)' % (pat.pattern, a, sa, 100 * sa / ta, b, sb, 100 * sb / tb))
    for k in sorted(set(A) | set(B), key=lambda k: -abs(B.get(k, 0) - A.get(k, 0)))[:14]:
        print('%-50s %8.1f %8.1f %+7.1f' % (k[:50], A.get(k, 0), B.get(k, 0), B.get(k, 0) - A.get(k, 0)))
