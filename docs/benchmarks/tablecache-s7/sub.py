import collections,sys
samples=open(sys.argv[1]).read().split('\n\n')
pat=sys.argv[2]; depth=int(sys.argv[3]) if len(sys.argv)>3 else 1
c=collections.Counter(); tot=0; n=0
for s in samples:
    lines=[l.strip() for l in s.strip().split('\n')[1:]]
    if not lines: continue
    n+=1
    syms=[l.split(' ',1)[1] if ' ' in l else l for l in lines]
    idx=[i for i,x in enumerate(syms) if pat in x]
    if not idx: continue
    tot+=1
    i=idx[-1]
    key=' > '.join(x.split('+')[0][:70] for x in reversed(syms[max(0,i-depth):i])) or 'self'
    c[key]+=1
print(f'{pat}: {tot} of {n} ({tot*100/n:.1f}%)')
for k,v in c.most_common(14): print(f'{v*100/n:5.2f}% {k}')
