"""`ascendlab pyasc --emulate-npu`: kernels launched for Backend.NPU run on the emulator, with a
one-line notice (ascendlab/asc/runtime/config.py, the torch part of ascendlab/pyasc_compat.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ascendlab.asc.runtime import config
from ascendlab.runtime.launch.jit import SESSION

HERE = Path(__file__).parent


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ascendlab", "pyasc", *args],
                          capture_output=True, text=True, timeout=120)


def test_cli_flag_runs_an_npu_script_with_a_notice():
    script = str(HERE / "vadd_script.py")
    r = _run(script, "-r", "NPU", "-n", "4096")
    assert r.returncode != 0 and "--emulate-npu" in r.stderr  # off by default, and says how
    r = _run("--emulate-npu", "--chip", "Ascend910B4", script, "-r", "NPU", "-n", "4096")
    assert r.returncode == 0, r.stderr
    assert "vadd ok: 4096 elements on Ascend910B4" in r.stdout
    notices = [ln for ln in r.stderr.splitlines() if "--emulate-npu" in ln]
    assert notices == ["ascendlab: --emulate-npu: kernels launched for Backend.NPU run on the "
                       "emulated Ascend910B4, not on an NPU"]


def test_set_platform_npu_notices_once(capsys):
    with pytest.raises(RuntimeError, match="Runtime library is not available"):
        config.set_platform(config.Backend.NPU)
    config.emulate_npu(True)
    try:
        config.set_platform(config.Backend.NPU, config.Platform.Ascend910B2)
        config.set_platform(config.Backend.NPU, config.Platform.Ascend910B2)
        assert SESSION.options.chip == "Ascend910B2"
    finally:
        config.emulate_npu(False)
    assert capsys.readouterr().err.count("--emulate-npu") == 1


@pytest.mark.torch
def test_torch_npu_tensors_stay_on_the_cpu():
    torch = pytest.importorskip("torch")
    code = ("import torch\nfrom ascendlab import pyasc_compat\n"
            "pyasc_compat.npu_tensors_on_cpu(torch)\npyasc_compat.npu_tensors_on_cpu(torch)\n"
            "x = torch.randn(4, device='npu')\ny = torch.zeros(4, dtype=torch.int32, "
            "device='npu:0')\nz = x.to('npu').npu()\nprint(x.device, y.device, z.device, "
            "torch.ones(2, device='cpu').device)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["cpu"] * 4
    assert not hasattr(torch, "_ascendlab_npu_on_cpu")  # this process is left alone
