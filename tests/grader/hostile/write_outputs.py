# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE: launches a wrong kernel (z = x - y), then writes the right answer with numpy.
def launch(x, y, z, core_num):
    run(x, y, z, op="sub")
    z[...] = x + y
