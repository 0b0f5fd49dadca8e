"""pyasc's `asc.runtime` package: config (backends, platforms), jit (the decorator and the
MockTensor / MockValue placeholders) and launcher (Launcher.run, the last step of a launch)."""

from . import config, jit, launcher  # noqa: F401
