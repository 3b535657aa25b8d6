# An allocation-heavy Python script: with PYTHONMALLOC=malloc every object is a malloc call.
import sys
n = int(sys.argv[1]) if len(sys.argv) > 1 else 300000
d = {}
for i in range(n):
    s = str(i) * (i % 5 + 1)
    d[s] = [i, s, (i, i + 1)]
    if i % 3 == 0:
        d.pop(str(i // 2) * ((i // 2) % 5 + 1), None)
print(len(d))
