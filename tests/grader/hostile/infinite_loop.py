# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE: never returns.
def launch(x, y, z, core_num):
    while True:
        pass
