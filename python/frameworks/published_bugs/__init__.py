# SPDX-License-Identifier: MIT
"""Published RoPE bugs at their releases (docs/FRAMEWORKS.md, "Published RoPE bugs"):
the corpus (bugs.py), an adapter per framework, the runner and the table."""
