"""The memories and the tensors that view them: GM (gm.py), LocalTensor and GlobalTensor, the
shape info a tensor carries, a list of GM tensors, and the operand checks every unit shares."""
