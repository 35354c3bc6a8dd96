"""Smoke test in real JupyterLab: a saved notebook output holding a webflow graph document renders as the
extension's SVG (no kernel needed for saved outputs), one element with data-op-name per op."""

from __future__ import annotations

import json
import os
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "browser"))
from launch import lab_page, require_jupyterlab  # noqa: E402  (tests/browser/launch.py)

GRAPH_MIME = "application/vnd.webflow.graph+json"


def _node(name: str, op_type: str, kind: str) -> dict:
    return {"name": name, "type": op_type, "kind": kind, "scope": name.rpartition("/")[0], "device": "",
            "backend": None, "attrs": {"T": "float32"},
            "outputs": [{"name": f"{name}:0", "shape": "(?, 2)", "dtype": "float32"}],
            "source": None, "kernel": None, "timing_us": None, "executed": False}


# Hand-written following labextension/SCHEMA.md (not produced by webflow.lab, so this test checks the renderer only).
DOC = {"version": 1, "title": "Graph (4 ops)", "live": False,
       "nodes": [_node("x", "Placeholder", "placeholder"), _node("w", "VariableV2", "variable"),
                 _node("MatMul", "MatMul", "op"), _node("<b>bold</b>", "Identity", "op")],
       "edges": [{"source": "x", "target": "MatMul", "tensor": "x:0", "input_index": 0, "shape": "(?, 2)",
                  "dtype": "float32", "control": False},
                 {"source": "w", "target": "MatMul", "tensor": "w:0", "input_index": 1, "shape": "(2, 3)",
                  "dtype": "float32", "control": False},
                 {"source": "MatMul", "target": "<b>bold</b>", "tensor": "MatMul:0", "input_index": 0,
                  "shape": "(?, 3)", "dtype": "float32", "control": False}],
       "error": None, "profile": None}


def _notebook() -> dict:
    output = {"output_type": "display_data", "metadata": {},
              "data": {GRAPH_MIME: DOC, "text/plain": ["<webflow graph: 4 ops>"]}}
    kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {"kernelspec": kernelspec},
            "cells": [{"cell_type": "code", "id": "graph", "execution_count": 1, "metadata": {},
                       "source": ["lab.show(graph)"], "outputs": [output]}]}


def test_saved_graph_output_renders_in_jupyterlab(tmp_path: pytest.TempPathFactory) -> None:
    require_jupyterlab("jupyterlab")   # (the saved output needs no kernel)
    root = str(tmp_path)
    with open(os.path.join(root, "graph.ipynb"), "w") as f:
        json.dump(_notebook(), f)
    start = time.perf_counter()
    with lab_page(root, viewport=None) as (url, page, log):
        print(f"jupyter lab up in {time.perf_counter() - start:.1f} s")
        page.goto(url + "/lab/tree/graph.ipynb", timeout=180_000)
        page.wait_for_selector(".wf-node[data-op-name]", timeout=180_000)
        print(f"graph rendered after {time.perf_counter() - start:.1f} s")
        attribute = "(els, name) => els.map(e => e.getAttribute(name))"
        names = page.eval_on_selector_all(".wf-node[data-op-name]", attribute, "data-op-name")
        types = page.eval_on_selector_all(".wf-node[data-op-type]", attribute, "data-op-type")
        labels = page.eval_on_selector_all(".wf-edge-label", "els => els.map(e => e.textContent)")
        bold = page.eval_on_selector_all(".jp-OutputArea b", "els => els.length")
        assert sorted(names) == sorted(n["name"] for n in DOC["nodes"])
        assert sorted(types) == sorted(n["type"] for n in DOC["nodes"])
        assert sorted(labels) == ["(2, 3) float32", "(?, 2) float32", "(?, 3) float32"]
        assert bold == 0  # the op name "<b>bold</b>" stayed text
        assert not log.foreign, f"requests left 127.0.0.1: {log.foreign[:5]}"
