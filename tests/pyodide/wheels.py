"""The two wheels Pyodide installs webflow from: moved to tools/wheels.py (shared with site/build.py).

This file keeps the old entry points working: `from wheels import build_webflow_wheel, micropip_wheel,
WheelUnavailable` with tests/pyodide on sys.path, and `python tests/pyodide/wheels.py [--out DIR]`.
"""

from __future__ import annotations

import importlib.util
import os
import sys

_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tools", "wheels.py")
_spec = importlib.util.spec_from_file_location("webflow_tools_wheels", _PATH)
_module = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = _module
_spec.loader.exec_module(_module)

CACHE = _module.CACHE
MICROPIP = _module.MICROPIP
WheelUnavailable = _module.WheelUnavailable
build_webflow_wheel = _module.build_webflow_wheel
micropip_wheel = _module.micropip_wheel
protobuf_wheel = _module.protobuf_wheel
PROTOBUF = _module.PROTOBUF
main = _module.main

if __name__ == "__main__":
    main()
