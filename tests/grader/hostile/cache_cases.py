# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE: remembers the first answer per shape and serves it again to later cases.
CACHE = {}


def launch(x, y, z, core_num):
    if x.shape in CACHE:
        run(x, y, z, op="sub")
        z[...] = CACHE[x.shape]
        return
    run(x, y, z)
    CACHE[x.shape] = z.copy()
