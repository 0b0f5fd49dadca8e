"""pyasc's advanced layer on the emulator: the Matmul object (matmul.py), its host tiling
(host_tiling.py, with the rules in tiling.py and the generator in tiling_plan.py) and
adv.softmax (softmax.py). The pyasc-facing names are re-exported by ascendlab.asc.adv and
ascendlab.asc.lib.host."""
