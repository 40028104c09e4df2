import subprocess,sys,collections
def load(f):
    out=subprocess.run(["perf","report","-i",f,"--no-children","--sort","sym","--stdio","-n"],capture_output=True,text=True).stdout
    d=collections.Counter()
    for l in out.splitlines():
        if l.startswith("#") or not l.strip(): continue
        p=l.split()
        try: n=int(p[1])
        except: continue
        d[" ".join(p[2:])[:110]]+=n
    return d
a=load(sys.argv[1]); b=load(sys.argv[2])
keys=set(a)|set(b)
rows=sorted(keys,key=lambda k:-(a[k]-b[k]))
print("total",sum(a.values()),sum(b.values()))
for k in rows[:int(sys.argv[3]) if len(sys.argv)>3 else 40]:
    print(f"{a[k]:6d} {b[k]:6d} {a[k]-b[k]:+6d}  {k}")
