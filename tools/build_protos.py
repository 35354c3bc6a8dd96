"""Regenerates webflow/protos/*_pb2.py from webflow/protos/*.proto (`make protos` runs it in its own venv).

    .venv-protoc/bin/python tools/build_protos.py            # needs grpcio-tools (the version pinned in the Makefile)
    .venv-protoc/bin/python tools/build_protos.py --check    # exit 1 if a committed _pb2.py is not what it generates

protoc runs from the repository root, so `import "webflow/protos/tensor.proto";` becomes the Python import
`from webflow.protos import tensor_pb2`. Then each generated file is changed in one way: its descriptors go to
webflow's own descriptor pool (webflow/protos/pool.py) instead of protobuf's default pool. The messages keep
TensorFlow's names (`tensorflow.GraphDef` ...), and TensorFlow's own _pb2 modules put those names in the default
pool, so the two could not otherwise be imported into one process (protobuf raises "duplicate symbol").
The generated files are committed: installing webflow (or running it in Pyodide) needs no compiler.
"""

from __future__ import annotations

import glob
import os
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROTOS = os.path.join("webflow", "protos")

IMPORT_LINE = "from google.protobuf.internal import builder as _builder\n"
POOL_IMPORT = "from webflow.protos.pool import POOL as _webflow_pool\n"
DEFAULT_POOL = "DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile("
OWN_POOL = "DESCRIPTOR = _webflow_pool.AddSerializedFile("
NOTE = "# Then tools/build_protos.py: the descriptors go to webflow's pool (webflow/protos/pool.py).\n"


def use_webflow_pool(text: str, path: str) -> str:
    """The generated module `text`, registering its file in webflow's pool; fails if protoc's output changed."""
    for needle in (IMPORT_LINE, DEFAULT_POOL, '"""Generated protocol buffer code."""\n'):
        if text.count(needle) != 1:
            raise SystemExit(f"{path}: expected one {needle.strip()!r} in protoc's output: update build_protos.py")
    text = text.replace(IMPORT_LINE, IMPORT_LINE + POOL_IMPORT)
    text = text.replace(DEFAULT_POOL, OWN_POOL)
    return text.replace('"""Generated protocol buffer code."""\n', NOTE + '"""Generated protocol buffer code."""\n')


def generate(out: str) -> list[str]:
    """Writes the _pb2.py of every webflow/protos/*.proto under `out` (same relative paths); returns those paths."""
    from grpc_tools import protoc

    sources = sorted(os.path.relpath(path, REPO) for path in glob.glob(os.path.join(REPO, PROTOS, "*.proto")))
    include = os.path.join(os.path.dirname(protoc.__file__), "_proto")  # google/protobuf/any.proto
    here = os.getcwd()
    os.chdir(REPO)
    try:
        status = protoc.main(["grpc_tools.protoc", "-I.", f"-I{include}", f"--python_out={out}", *sources])
    finally:
        os.chdir(here)
    if status != 0:
        raise SystemExit(status)
    generated = []
    for source in sources:
        path = os.path.join(out, source[:-len(".proto")] + "_pb2.py")
        with open(path, encoding="utf-8") as file:
            text = use_webflow_pool(file.read(), path)
        with open(path, "w", encoding="utf-8") as file:
            file.write(text)
        generated.append(os.path.relpath(path, out))
    return generated


def main(argv: list[str]) -> int:
    try:
        import grpc_tools  # noqa: F401
    except ImportError:
        print("grpcio-tools is not installed: run `make protos` (it makes .venv-protoc with the pinned version)",
              file=sys.stderr)
        return 1
    if "--check" in argv:
        with tempfile.TemporaryDirectory() as out:
            generated = generate(out)
            committed = {os.path.relpath(path, REPO) for path in glob.glob(os.path.join(REPO, PROTOS, "*_pb2.py"))}
            stale = sorted(committed - set(generated))  # a _pb2.py whose .proto is gone
            for relative in generated:
                with open(os.path.join(out, relative), "rb") as fresh:
                    expected = fresh.read()
                path = os.path.join(REPO, relative)
                if relative not in committed or open(path, "rb").read() != expected:
                    stale.append(relative)
        for relative in stale:
            print(f"{relative} is not what webflow/protos/*.proto generate: run `make protos`")
        return 1 if stale else 0
    for stale in glob.glob(os.path.join(REPO, PROTOS, "*_pb2.py")):
        os.remove(stale)
    print(f"generated {len(generate(REPO))} modules in {PROTOS}/")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
