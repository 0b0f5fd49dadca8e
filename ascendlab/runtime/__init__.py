"""The emulated AI Core. Files, in dataflow order (see README.md here):

chips -> dtypes, enums, params -> trace -> core -> memory -> tensor -> queue -> dma -> vector
-> cube -> sync -> kernel_ast -> scheduler -> launch
"""
