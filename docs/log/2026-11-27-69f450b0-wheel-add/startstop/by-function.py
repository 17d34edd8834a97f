import sys, collections
def load(p):
    d = collections.Counter(); fn=None
    for line in open(p):
        if line.startswith('fn='): fn=line[3:].strip(); continue
        if line[0].isdigit():
            parts=line.split()
            if len(parts)>=2: d[fn]+=int(parts[1])
    return d
def per(v):
    a=load(f'cg.{v}.100'); b=load(f'cg.{v}.300')
    return {k:(b[k]-a[k])/200000 for k in set(a)|set(b)}
h=per(sys.argv[1]); s=per(sys.argv[2])
print('total %.1f %.1f'%(sum(h.values()),sum(s.values())))
for k in sorted(set(h)|set(s), key=lambda k: -abs(s.get(k,0)-h.get(k,0)))[:12]:
    hv=h.get(k,0); sv=s.get(k,0)
    print('%-45s %7.1f %7.1f %+6.1f'%(k[:45],hv,sv,sv-hv))
