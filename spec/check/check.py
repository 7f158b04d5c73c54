#!/usr/bin/env python3
"""Independent checker of verdict's known-answer vectors, written from spec/ alone.

Standard library only. Usage: python3 spec/check/check.py [--vectors DIR]
Prints one line per vector file (cases checked, skipped, failed) and exits 1 on any mismatch.
"""

import json
import os
import sys
import time

sys.dont_write_bytecode = True  # a clean clone stays clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import blake3  # noqa: E402
import check_elgamal  # noqa: E402
import check_group  # noqa: E402
import check_hg  # noqa: E402
import check_nizk  # noqa: E402
import check_shuffle  # noqa: E402
import check_transcript  # noqa: E402
import check_xor  # noqa: E402

CHECKS = [
    ("transcript.json", check_transcript.run),
    ("group-ristretto255.json", check_group.run),
    ("group-p256.json", check_group.run),
    ("nizk-ristretto255.json", check_nizk.run),
    ("nizk-p256.json", check_nizk.run),
    ("shuffle-ristretto255.json", check_shuffle.run),
    ("dcnet-xor-ristretto255.json", check_xor.run),
    ("dcnet-hashing-generator-ristretto255.json", check_hg.run),
    ("dcnet-hashing-generator-p256.json", check_hg.run),
    ("dcnet-elgamal-ristretto255.json", check_elgamal.run),
]


class Report:
    def __init__(self, name):
        self.name, self.ok, self.failed, self.skipped = name, 0, [], []

    def expect(self, case, condition, detail=""):
        if condition:
            self.ok += 1
        else:
            self.failed.append((case["id"], case.get("comment", ""), detail))

    def skip(self, case, why):
        self.skipped.append((case["id"], why))


def main(argv):
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    vectors = os.path.join(root, "test-vectors")
    if len(argv) > 2 and argv[1] == "--vectors":
        vectors = argv[2]
    blake3.self_test()
    failures = 0
    start = time.time()
    for name, run in CHECKS:
        path = os.path.join(vectors, name)
        if not os.path.exists(path):
            print(f"{name}: MISSING")
            failures += 1
            continue
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        report = Report(name)
        t0 = time.time()
        try:
            run(doc, report)
        except Exception as e:  # a vector shape this checker cannot read is a failure, loudly
            report.failed.append(("-", "the checker stopped", f"{type(e).__name__}: {e}"))
        print(f"{name}: {report.ok} cases agree, {len(report.skipped)} skipped, "
              f"{len(report.failed)} disagree ({time.time() - t0:.1f} s)")
        for cid, why in report.skipped:
            print(f"  skipped case {cid}: {why}")
        for cid, comment, detail in report.failed:
            print(f"  DISAGREE case {cid} ({comment}): {detail}")
        failures += len(report.failed)
    print(f"total {time.time() - start:.1f} s; {'FAILED' if failures else 'all agree'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
