"""The scalar unit: its arithmetic, control and system registers, printing from a kernel, and
the hints (cache maintenance, profiling markers) that change no emulated number."""
