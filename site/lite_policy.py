"""The JupyterLite site's Content-Security-Policy, added to every page `jupyter lite build` wrote (build_lite.py).

Like the site's own pages (index.html, demo/, playground/): everything from the site itself, so nothing a
lesson or an output does can reach another origin (connect-src, img-src ... 'self'). JupyterLab needs two
allowances the other pages do not: 'unsafe-eval' (it checks its settings against JSON schemas with ajv, which
compiles each validator with `new Function`: without it most plugins fail to start) and each page's one inline
bootstrap script, allowed by its sha256 (not 'unsafe-inline'). Measured in Chromium (tests/browser/test_csp.py).
Pyodide's own pages under static/ (its console.html) are not the site's and are left as they are.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re

POLICY = ("default-src 'self'; script-src 'self' 'unsafe-eval' 'wasm-unsafe-eval' {hashes}; "
          "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; "
          "worker-src 'self' blob:; object-src 'none'; base-uri 'self'; form-action 'self'")
# An inline script: no src, and not a data block (the JSON config a page carries is not run, so not checked).
_INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>(.*?)</script>", re.S | re.I)
_HEAD = re.compile(r"<head[^>]*>", re.I)


def policy_for(html: str) -> str:
    """The policy of one page: POLICY with the sha256 of each of its inline scripts."""
    hashes = ["'sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode() + "'"
              for script in _INLINE_SCRIPT.findall(html)]
    return POLICY.format(hashes=" ".join(hashes)).replace("  ", " ")


def protect(site_dir: str) -> list[str]:
    """Adds the policy's <meta> first in the <head> of every page under site_dir (not static/); the pages done."""
    done = []
    for folder, subfolders, files in os.walk(site_dir):
        subfolders[:] = [name for name in subfolders if not (folder == site_dir and name == "static")]
        for name in files:
            if name.endswith(".html"):
                path = os.path.join(folder, name)
                if _add_meta(path):
                    done.append(path)
    return sorted(done)


def _add_meta(path: str) -> bool:
    with open(path, encoding="utf-8") as file:
        html = file.read()
    if "Content-Security-Policy" in html or not _HEAD.search(html):
        return False
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy_for(html)}">'
    html = _HEAD.sub(lambda match: match.group(0) + "\n    " + meta, html, count=1)   # before any script
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as file:
        file.write(html)
    os.replace(temporary, path)   # never a half-written page
    return True
