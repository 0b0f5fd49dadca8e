"""The vector unit: one module per instruction family on one engine (forms.py checks operands
and runs the count and mask+repeat forms; elementwise.py holds the element-wise tables)."""
