"""The memory transfer engines (MTE1/2/3): data_copy and its forms (ND->NZ), atomic stores into
GM, AIPP's image loads, init_const_value."""
