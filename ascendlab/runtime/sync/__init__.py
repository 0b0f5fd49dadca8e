"""Synchronisation written by the kernel's author: flags and barriers between a core's pipes,
flags between cores (GM words, AIC <-> AIV). The syncs pyasc's compiler inserts are in
runtime/autosync.py."""
