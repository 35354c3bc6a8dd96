"""Runs every benchmark of the project, one after the other, then writes benchmarks/report.md + report.json.

    python benchmarks/run_all.py [--tf-python PATH] [--torch-python PATH] [--data DIR] [--quick]
                                 [--only size_sweep,core_overhead] [--out benchmarks/_bench_out]

`make bench` runs this. Each benchmark's stdout goes to <out>/<name>.log (its stderr to <name>.err), its
status to <out>/status.json; a benchmark whose peer is missing (TensorFlow's or PyTorch's interpreter, Node,
Chromium, the built site, the npm packages, the data) is skipped with the reason, not failed. Then
make_report.py turns the logs' JSON lines into the report. Long: the full run takes an hour or more on 2 cores
(word_lm alone ~15 min); --quick passes each script its own --quick where it has one.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import make_report  # noqa: E402 - benchmarks/ is not a package


def default_python(name: str, env_var: str) -> str | None:
    path = os.path.join(REPO, name, "bin", "python")
    return os.environ.get(env_var) or (path if os.path.exists(path) else None)


def plan(args: argparse.Namespace) -> list:
    """[(name, command, [missing requirement, ...], takes --quick)] in the order they run."""
    tf, torch, data, out = args.tf_python, args.torch_python, args.data, args.out
    py = sys.executable
    site = os.path.join(REPO, "site", "_build")
    npm = os.path.join(HERE, "wasm", "node_modules")

    def need(**things: object) -> list:
        return [what for what, ok in things.items() if not ok]

    browser = need(chromium=shutil.which("chromium") or shutil.which("chromium-browser"),
                   site_build=os.path.isdir(site), npm_packages=os.path.isdir(npm))
    peers = ["--tf-python", tf or "", "--torch-python", torch or ""]
    return [
        ("core_overhead", [py, "core_overhead.py", "--tf-python", tf or ""], need(tensorflow=tf), True),
        ("size_sweep", [py, "size_sweep.py", *peers, "--json", os.path.join(out, "size_sweep.json")],
         need(tensorflow=tf), True),
        ("cnn_throughput", [py, "cnn_throughput.py", *peers, "--json"], need(tensorflow=tf, pytorch=torch), False),
        ("keras_fit", [py, "keras_fit.py", *peers], need(tensorflow=tf, pytorch=torch, data=data), False),
        ("char_lm", [py, "char_lm.py", "--tf-python", tf or "", "--threads", "1"], need(tensorflow=tf, data=data),
         False),
        ("word_lm", [py, "word_lm.py", *peers, "--no-progress"], need(tensorflow=tf, pytorch=torch, data=data,
                                                     script=os.path.exists(os.path.join(HERE, "word_lm.py"))), False),
        ("wasm_vs_tfjs", [py, "wasm_vs_tfjs.py", "--no-npm-ci"], need(node=shutil.which("node"), npm_packages=
                                                                      os.path.isdir(npm)), True),
        ("browser_demo", [py, "browser_demo.py", "--json"], browser, False),
        ("browser_cnn", [py, "browser_cnn.py", "--json", "--no-full"], browser, False),
        ("browser_char_rnn", [py, "browser_char_rnn.py", "--json"], browser, False),
        ("browser_vs_tfjs", [py, "browser_vs_tfjs.py", "--json"], browser + need(wasm_kernels=os.path.exists(
            os.path.join(REPO, "webflow", "wasm", "webflow_kernels.wasm"))), True),
    ]


def run_one(name: str, command: list, quick: bool, out: str, data: str | None) -> dict:
    command = [command[0], os.path.join(HERE, command[1]), *command[2:], *(["--quick"] if quick else [])]
    env = dict(os.environ, PYTHONPATH=REPO, **({"WEBFLOW_DATA": data} if data else {}))
    started = time.time()
    with open(os.path.join(out, f"{name}.log"), "w") as log, open(os.path.join(out, f"{name}.err"), "w") as err:
        done = subprocess.run(command, stdout=log, stderr=err, cwd=REPO, env=env, check=False)
    return {"status": "ok" if done.returncode == 0 else f"failed (exit {done.returncode}, see {name}.err)",
            "seconds": round(time.time() - started, 1), "command": " ".join(command[1:])}


def main() -> None:
    parser = argparse.ArgumentParser(description="run every benchmark, then write benchmarks/report.md/.json")
    parser.add_argument("--tf-python", default=default_python(".venv-tf", "WEBFLOW_TF_PYTHON"))
    parser.add_argument("--torch-python", default=default_python(".venv-torch", "WEBFLOW_TORCH_PYTHON"))
    parser.add_argument("--data", default=os.environ.get("WEBFLOW_DATA") or
                        next((d for d in (os.path.join(REPO, "..", "shared", "data"),) if os.path.isdir(d)), None))
    parser.add_argument("--quick", action="store_true", help="each script's --quick, where it has one")
    parser.add_argument("--only", help="comma-separated benchmark names")
    parser.add_argument("--out", default=os.path.join(HERE, "_bench_out"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    only = set(args.only.split(",")) if args.only else None
    status: dict = {}
    for name, command, missing, takes_quick in plan(args):
        if only is not None and name not in only:
            continue
        if missing:
            status[name] = {"status": "skipped: missing " + ", ".join(missing)}
        else:
            print(f"# {name} ...", flush=True)
            status[name] = run_one(name, command, args.quick and takes_quick, args.out, args.data)
        print(f"# {name}: {status[name]['status']}", flush=True)
        make_report.write_json(os.path.join(args.out, "status.json"), status)  # after each: a partial run reports
    make_report.main(["--dir", args.out, "--tf-python", args.tf_python or "", "--torch-python",
                      args.torch_python or ""])


if __name__ == "__main__":
    main()
