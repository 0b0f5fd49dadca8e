# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE: no kernel at all, numpy only.
def launch(x, y, z, core_num):
    z[...] = x + y
