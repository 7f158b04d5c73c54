"""test-vectors/transcript.json against spec/transcript.md."""

import p256
import ristretto255
from transcript import Transcript

GROUPS = {"ristretto255": ristretto255, "p256": p256}


def run(doc, report):
    for group in doc["test_groups"]:
        for case in group["cases"]:
            inputs = case["inputs"]
            t = Transcript(bytes.fromhex(inputs["protocol"]))
            outputs = []
            for op in inputs["ops"]:
                kind = op["op"]
                label = bytes.fromhex(op["label"])
                if kind == "append_message":
                    t.append(label, bytes.fromhex(op["data"]))
                elif kind == "append_u64":
                    t.append_u64(label, op["value"])
                elif kind == "challenge_bytes":
                    outputs.append(t.challenge_bytes(label, op["length"]).hex())
                elif kind.startswith("challenge_scalar_"):
                    g = GROUPS[kind[len("challenge_scalar_"):]]
                    outputs.append(g.scalar_encode(t.challenge_scalar(label, g)).hex())
                elif kind.startswith("challenge_weights_"):
                    g = GROUPS[kind[len("challenge_weights_"):]]
                    outputs.extend(
                        g.scalar_encode(w).hex() for w in t.challenge_weights(label, op["count"]))
                elif kind.startswith("challenge_scalars_"):
                    g = GROUPS[kind[len("challenge_scalars_"):]]
                    count = op.get("count", op.get("n"))
                    if count is None:
                        report.skip(case, f"{kind} without a count")
                        break
                    outputs.extend(
                        g.scalar_encode(s).hex() for s in t.challenge_scalars(label, count, g))
                else:
                    report.skip(case, f"unknown op {kind}")
                    break
            else:
                report.expect(case, outputs == case["expected"]["outputs"],
                              f"outputs {outputs}")
