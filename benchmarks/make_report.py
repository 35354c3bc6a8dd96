"""Builds benchmarks/report.md and benchmarks/report.json from the benchmarks' outputs (run_all.py's directory).

    python benchmarks/make_report.py [--dir benchmarks/_bench_out] [--out benchmarks/report]
                                     [--tf-python PATH] [--torch-python PATH]

Reads, in --dir: every <name>.log (a benchmark's stdout: each line that is a JSON object, or "RESULT:" followed
by one, is a figure), size_sweep.json (the size sweep's whole run) and status.json (which benchmarks ran, were
skipped for a missing peer, or failed). Writes one Markdown report with the CPU model, the load average, the
peers' versions, each benchmark's figures as a table (ratio columns included), the size sweep's points where
webflow is slowest next to TensorFlow, and the same data as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VERSION_PROGRAMS = {"tensorflow": "import tensorflow as t; print(t.__version__)",
                    "pytorch": "import torch as t; print(t.__version__)",
                    "numpy": "import numpy as t; print(t.__version__)"}


def json_lines(path: str) -> list:
    """The JSON objects printed one a line in a log."""
    found = []
    with open(path, errors="replace") as file:
        for line in file:
            line = line.strip().removeprefix("RESULT:")
            if line.startswith("{"):
                try:
                    value = json.loads(line)
                except ValueError:
                    continue
                if isinstance(value, dict):
                    found.append(value)
    return found


def peer_versions(tf_python: str | None, torch_python: str | None) -> dict:
    versions = {"python": platform.python_version()}
    for name, python in (("numpy", None), ("tensorflow", tf_python), ("pytorch", torch_python)):
        if name != "numpy" and not python:
            continue
        command = [python or sys.executable, "-c", VERSION_PROGRAMS[name]]
        done = subprocess.run(command, capture_output=True, text=True, check=False,
                              env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
        versions[name] = done.stdout.strip().splitlines()[-1] if done.returncode == 0 and done.stdout.strip() else "?"
    package = os.path.join(HERE, "wasm", "package.json")
    if os.path.exists(package):
        with open(package) as file:
            versions["tfjs"] = json.load(file).get("dependencies", {}).get("@tensorflow/tfjs", "?")
    for name, command in (("node", ["node", "--version"]), ("chromium", ["chromium", "--version"])):
        try:
            versions[name] = subprocess.run(command, capture_output=True, text=True, timeout=20).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            pass
    return versions


def machine() -> dict:
    model = "?"
    with open("/proc/cpuinfo") as file:
        model = next((line.split(":", 1)[1].strip() for line in file if line.startswith("model name")), model)
    load = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    return {"cpu_model": model, "cpus": os.cpu_count(), "uptime_at_report": load}


def table(rows: list) -> list:
    """Markdown table lines of dict rows: the union of their keys as columns, nested values as JSON."""
    columns: list = []
    for row in rows:
        columns += [key for key in row if key not in columns]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows:
        cells = [json.dumps(row[key]) if isinstance(row.get(key), dict | list) else str(row.get(key, ""))
                 for key in columns]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def cnn_rows(results: dict) -> list:
    """cnn_throughput.py --json's {engine: {"images_per_second": {batch: rate}, ...}} as one row per batch size,
    with webflow's rate over each peer's (above 1: webflow is faster)."""
    mine = results.get("webflow", {}).get("images_per_second", {})
    rows = []
    for batch, rate in mine.items():
        row = {"batch": batch, "webflow_images_per_s": rate}
        for peer in ("tensorflow", "pytorch"):
            theirs = results.get(peer, {}).get("images_per_second", {}).get(batch)
            if theirs:
                row[f"{peer}_images_per_s"] = theirs
                row[f"webflow_over_{peer}"] = round(rate / theirs, 2)
        rows.append(row)
    return rows


def sweep_section(sweep: dict) -> list:
    lines = [f"Load: {sweep['machine'].get('uptime', '?')} (after: {sweep['machine'].get('uptime_after', '?')}); "
             f"peak float32 {sweep['peak']['gflops_1_thread']} GFLOP/s on 1 thread, "
             f"{sweep['peak']['gflops_all_threads']} on {sweep['peak']['threads']}; median of {sweep['rounds']} "
             f"interleaved blocks{' (--quick)' if sweep.get('quick') else ''}.", ""]
    keys = ("mode", "op", "case", "webflow", "tensorflow", "pytorch", "ratio_tf", "ratio_torch", "gflops_webflow",
            "gflops_tensorflow")
    points = sweep["points"]
    lines += table([{key: point.get(key, "") for key in keys} for point in points])
    worst = sorted((p for p in points if isinstance(p.get("ratio_tf"), float | int)), key=lambda p: -p["ratio_tf"])
    lines += ["", "Slowest next to TensorFlow (webflow / TensorFlow > 1.1):", ""]
    lines += [f"- {p['mode']} {p['op']} {p['case']}: {p['ratio_tf']}x ({p['webflow']} vs {p['tensorflow']} us)"
              for p in worst if p["ratio_tf"] > 1.1] or ["- none"]
    return lines


def browser_vs_tfjs_section(figures: list) -> list:
    """browser_vs_tfjs.py's JSON lines: its set-up and load as text, GEMMs and the MLP step as tables (ratios =
    tfjs's time / webflow's: above 1, webflow is faster), the profile of a small product as a list."""
    parts: dict = {}
    for row in figures:
        parts.setdefault(row.get("part"), []).append({k: v for k, v in row.items() if k not in ("benchmark", "part")})
    lines = []
    for setup in parts.get("setup", []):
        lines += ["Set-up: " + ", ".join(f"{key} {value}" for key, value in setup.items()), ""]
    for part in ("gemm", "mlp_step"):
        if parts.get(part):
            lines += table(parts[part]) + [""]
    for found in parts.get("profile", []):
        for way in ("eager", "graph"):
            lines.append(f"Profile of a {found['n']}x{found['n']} {way} product in Pyodide: "
                         f"{found.get(f'{way}_python_calls_per_product')} Python calls per product; by cumulative "
                         "ms per product: " + "; ".join(f"{entry['function']} {entry['cumulative_ms']}"
                                                       for entry in found.get(way, [])[:6]))
        lines.append("")
    return lines


def build(directory: str, tf_python: str | None, torch_python: str | None) -> dict:
    status_path = os.path.join(directory, "status.json")
    status = json.load(open(status_path)) if os.path.exists(status_path) else {}
    report: dict = {"generated": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "machine": machine(),
                    "versions": peer_versions(tf_python, torch_python), "status": status, "benchmarks": {}}
    names = sorted({name[:-4] for name in os.listdir(directory) if name.endswith(".log")} | set(status))
    for name in names:
        log = os.path.join(directory, f"{name}.log")
        report["benchmarks"][name] = json_lines(log) if os.path.exists(log) else []
    sweep = os.path.join(directory, "size_sweep.json")
    if os.path.exists(sweep):
        with open(sweep) as file:
            report["size_sweep"] = json.load(file)
    return report


def markdown(report: dict) -> str:
    m, v = report["machine"], report["versions"]
    lines = ["# Benchmark report", "", f"Generated {report['generated']} by `make bench` (benchmarks/run_all.py, "
             "make_report.py). Ratios: webflow / peer for times (below 1: webflow faster); for rates the key says "
             "which way.", "", f"- CPU: {m['cpu_model']}, {m['cpus']} CPUs; {m['uptime_at_report']}",
             "- Versions: " + ", ".join(f"{k} {val}" for k, val in v.items()), ""]
    for name, figures in report["benchmarks"].items():
        state = report["status"].get(name, {}).get("status", "log only")
        lines += [f"## {name}", "", f"Status: {state}.", ""]
        if name == "size_sweep" and "size_sweep" in report:
            lines += sweep_section(report["size_sweep"]) + [""]
        elif name == "cnn_throughput" and figures:
            lines += table(cnn_rows(figures[-1])) + [""]
        elif name == "browser_vs_tfjs" and figures:
            lines += browser_vs_tfjs_section(figures)
        elif figures:
            lines += table(figures) + [""]
    return "\n".join(lines) + "\n"


def write_json(path: str, data: object) -> None:
    """Temp file + rename: never a half-written file."""
    temporary = f"{path}.tmp{os.getpid()}"
    with open(temporary, "w") as file:
        json.dump(data, file, indent=1)
    os.replace(temporary, path)


def write_text(path: str, text: str) -> None:
    temporary = f"{path}.tmp{os.getpid()}"
    with open(temporary, "w") as file:
        file.write(text)
    os.replace(temporary, path)


def main(argv: list | None = None) -> None:
    parser = argparse.ArgumentParser(description="benchmarks/report.md + .json from the benchmarks' outputs")
    parser.add_argument("--dir", default=os.path.join(HERE, "_bench_out"))
    parser.add_argument("--out", default=os.path.join(HERE, "report"), help="path without .md / .json")
    parser.add_argument("--tf-python", default=os.environ.get("WEBFLOW_TF_PYTHON"))
    parser.add_argument("--torch-python", default=os.environ.get("WEBFLOW_TORCH_PYTHON"))
    args = parser.parse_args(argv)
    report = build(args.dir, args.tf_python or None, args.torch_python or None)
    write_json(args.out + ".json", report)
    write_text(args.out + ".md", markdown(report))
    print(f"wrote {args.out}.md and {args.out}.json")


if __name__ == "__main__":
    main()
