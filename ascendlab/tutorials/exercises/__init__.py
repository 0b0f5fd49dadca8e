"""One module per lesson (lNN_slug.py), each defining EXERCISES; see ../registry.py."""
