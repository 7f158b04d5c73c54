//! NIST P-256 (secp256r1) over arkworks 0.6 — implementation in progress.
