# SPDX-License-Identifier: MIT
"""What an adapter raises to decline one case its framework cannot take by construction (an argument it
has no form for, a position its integer type cannot hold). The workers run in the frameworks' venvs,
which do not import ropecheck, so the adapters raise this class; worker.py sends its name and message,
and proxy.py raises ropecheck.Unsupported with that message on the runner's side: the case is skipped
and counted by reason (CheckResult.skipped), never failed. The message is a category, not a case's
numbers, so the skip table counts like cases together."""


class Unsupported(Exception):
    """This case lies outside what the framework's own API can express."""
