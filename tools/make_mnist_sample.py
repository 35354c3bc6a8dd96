"""Regenerates webflow/datasets/sample/ (the MNIST sample shipped in the package) from the full MNIST files.

    python tools/make_mnist_sample.py [--data ../shared/data/mnist] [--train 6000] [--test 1000]

The sample is the first `--train` training and first `--test` test images with their labels, written as
gzip-compressed IDX files with a fixed gzip timestamp, so the same input always gives the same bytes.
The script prints the sha256 of each uncompressed file (recorded in the sample's README).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from webflow.datasets import mnist  # noqa: E402 - after the path set-up above


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=os.environ.get("WEBFLOW_DATA", "../shared/data"),
                        help="folder with the four MNIST IDX files (or with an mnist/ subfolder)")
    parser.add_argument("--train", type=int, default=6000)
    parser.add_argument("--test", type=int, default=1000)
    parser.add_argument("--out", default=str(mnist.SAMPLE_DIR))
    args = parser.parse_args(argv)

    folder = mnist.locate(args.data)
    (x_train, y_train), (x_test, y_test) = mnist.load_folder(folder, verify=True)
    parts = {"train_images": x_train[:args.train], "train_labels": y_train[:args.train],
             "test_images": x_test[:args.test], "test_labels": y_test[:args.test]}
    for key, array in parts.items():
        stem = mnist.FILES[key][0]
        path = Path(args.out) / (stem + ".gz")
        mnist.write_idx(path, array)
        digest = hashlib.sha256(gzip.decompress(path.read_bytes())).hexdigest()
        print(f"{path}  shape={array.shape}  sha256(uncompressed)={digest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
