# SPDX-License-Identifier: MIT
"""The module refuses a numpy its pybind11 cannot read (ropecheck/__init__.py):
pybind11 before 2.12 reads numpy 2 arrays as garbage without an error, which
would turn every verdict into noise. A stand-in numpy 2 on the path must make
`import ropecheck` fail, naming both versions and the fix."""
import json
import os
import re
import subprocess
import sys
import textwrap


def test_numpy_2_is_refused_when_pybind11_cannot_read_it(tmp_path):
    fake = tmp_path / "numpy"
    fake.mkdir()
    (fake / "__init__.py").write_text('__version__ = "2.1.0"\n')
    code = textwrap.dedent("""
        import json
        try:
            import ropecheck
            print(json.dumps({"built": list(ropecheck._core.PYBIND11_VERSION), "refused": ""}))
        except ImportError as e:
            print(json.dumps({"built": None, "refused": str(e)}))
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    out = json.loads(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                    check=True).stdout)
    if out["built"] is not None:
        assert tuple(out["built"][:2]) >= (2, 12), out  # imported: only a pybind11 that reads numpy 2 may
    else:
        m = re.search(r"pybind11 (\d+)\.(\d+)", out["refused"])
        assert m and (int(m.group(1)), int(m.group(2))) < (2, 12), out
        assert "numpy 2.1.0" in out["refused"] and "numpy < 2" in out["refused"], out
