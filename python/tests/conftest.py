# SPDX-License-Identifier: MIT
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))  # the test helpers (hf_rope_numpy) beside the tests
# A user's test file the plugin tests run in a subprocess; its buggy kernel fails by design.
collect_ignore = ["user_project"]
