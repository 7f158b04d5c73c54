//! Prints the Figure 6 analog (ciphertext size against plaintext size per suite) as CSV.
//!
//! `cargo run -p verdict-dcnet --example figure6`

fn main() {
    println!(
        "suite,group,plaintext_bytes,client_ciphertext_bytes,server_ciphertext_bytes,client_expansion"
    );
    for r in verdict_dcnet::sizes::figure6_rows() {
        println!(
            "{},{},{},{},{},{:.3}",
            r.suite,
            r.group,
            r.plaintext_len,
            r.client_ciphertext_len,
            r.server_ciphertext_len,
            r.client_expansion()
        );
    }
}
