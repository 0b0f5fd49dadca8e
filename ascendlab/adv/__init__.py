"""pyasc's advanced layer on the emulator: the Matmul object (matmul.py; batches in
matmul_batch.py, config builders in matmul_config.py, the static tiling in matmul_static.py, its
enums in matmul_enums.py), its host tiling (host_tiling.py, with the rules in tiling.py and the
generator in tiling_plan.py), adv.softmax (softmax.py), the element-wise math routines (math.py),
adv.quant (quant.py) and adv.rmsnorm (rmsnorm.py). The pyasc-facing names are re-exported by
ascendlab.asc.adv and
ascendlab.asc.lib.host."""
