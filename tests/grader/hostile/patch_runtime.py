# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE: the kernel issues `sub`, but the runtime's table is patched so that sub adds: the
# process gets z = x + y while its trace says z = x - y. (Needs the static rules off.)
import ascendlab.runtime.vector.elementwise as vector

vector.BINARY["sub"] = vector.BINARY["add"]
asc.add = asc.sub


def launch(x, y, z, core_num):
    run(x, y, z)
