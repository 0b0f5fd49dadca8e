# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE: looks for other grading jobs' folders next to its own and tries to read their
# inputs and write into them; prints what it reached.
import os
import tempfile

reached = []
for base in {tempfile.gettempdir(), "/tmp", "/var/tmp"}:
    try:
        names = os.listdir(base)
    except OSError:
        continue
    for n in names:
        if not n.startswith("ascendlab-grade-") or os.getcwd().startswith(os.path.join(base, n)):
            continue
        for dirpath, _dirs, files in os.walk(os.path.join(base, n)):
            for f in files:
                try:
                    open(os.path.join(dirpath, f), "rb").read(16)
                    reached.append("read " + os.path.join(dirpath, f))
                except OSError:
                    pass
            try:
                open(os.path.join(dirpath, "planted"), "w").write("x")
                reached.append("wrote " + dirpath)
            except OSError:
                pass
print("NEIGHBOUR", reached, flush=True)


def launch(x, y, z, core_num):
    run(x, y, z)
