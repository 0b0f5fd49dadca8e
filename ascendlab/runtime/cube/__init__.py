"""The cube unit (AIC): load_data L1 -> L0A/L0B and mmad (mmad.py), fixpipe L0C -> GM/L1,
sparse cube loads and mmad."""
