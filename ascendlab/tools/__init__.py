"""Tools that read a Run: Chrome-trace export, profile/advisor, autotune."""
