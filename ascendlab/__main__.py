"""`python -m ascendlab` is the `ascendlab` command."""

import sys

from .cli import main

sys.exit(main())
