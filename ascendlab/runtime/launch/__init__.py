"""A launch: @asc.jit (jit.py), argument conversion, the kernel's re-compilation with pyasc's
semantics, compile-only launches, the core scheduler and floating-point error reporting."""
