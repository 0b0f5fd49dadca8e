# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE: moves the answer into x and zeroes y before launching the honest kernel.
def launch(x, y, z, core_num):
    x[...] = x + y
    y[...] = 0
    run(x, y, z)
