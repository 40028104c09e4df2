import collections,sys
samples=open(sys.argv[1]).read().split('\n\n')
pats=sys.argv[2:]
c=collections.Counter(); tot=0
for s in samples:
    lines=s.strip().split('\n')
    if len(lines)<2: continue
    tot+=1
    st='\n'.join(lines[1:])
    for p in pats:
        if p in st: c[p]+=1
print('total',tot)
for p in pats: print(f'{c[p]*100/tot:6.2f}%  {p}')
