"""The `ascendlab` command (main.py) and the helpers only it uses: `ascendlab lab` (lab.py: the
course copied into a working folder, JupyterLab started there) and `ascendlab doctor`
(doctor.py: the installation checked, a fix for each missing piece)."""

from .main import main

__all__ = ["main"]
