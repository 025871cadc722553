import os
import sys

sys.path.insert(0, os.path.dirname(__file__))  # the test helpers (hf_rope_numpy) beside the tests
