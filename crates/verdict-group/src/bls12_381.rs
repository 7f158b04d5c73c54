//! BLS12-381 G1, G2, GT and the pairing over arkworks 0.6 — implementation in progress.
