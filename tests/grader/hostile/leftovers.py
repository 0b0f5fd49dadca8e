# ruff: noqa: F821 - appended to honest.py, which defines asc and run()
# HOSTILE: leaves files in every scratch folder, fills /tmp as far as it can, and reports the
# mode of its job folder.
import os

TAG = "ascendlab-leftover-probe"
for d in ("/tmp", "/var/tmp", "/dev/shm"):
    try:
        with open(os.path.join(d, TAG), "w") as f:
            f.write("left behind")
    except OSError:
        pass
written = 0
try:
    with open(os.path.join("/tmp", TAG + "-big"), "wb") as f:
        for _ in range(64):
            f.write(b"\0" * (1 << 20))
            f.flush()
            written += 1 << 20
except OSError:
    pass
print("LEFTOVERS", written, oct(os.stat("..").st_mode & 0o777), flush=True)


def launch(x, y, z, core_num):
    run(x, y, z)
