//! Transcript internals as vector intermediates: [`verdict_nizk::recording`] records, in order,
//! as the `transcript_events` list `spec/vectors.md` describes.

use serde_json::{Value, json};
use verdict_nizk::recording::{Record, record};

use crate::hx;

/// Runs `f` and returns its result with the `transcript_events` of every proof or signature
/// made meanwhile.
pub(crate) fn recorded<T>(f: impl FnOnce() -> T) -> (T, Value) {
    let (out, records) = record(f);
    (out, Value::Array(records.iter().map(event).collect()))
}

fn event(r: &Record) -> Value {
    match r {
        Record::Challenge {
            label,
            absorbed,
            output,
        } => json!({
            "event": "challenge", "label": hx(label), "absorbed": hx(absorbed),
            "output": hx(output),
        }),
        Record::ProverRng {
            label,
            absorbed,
            entropy,
        } => json!({
            "event": "prover-rng", "label": hx(label), "absorbed": hx(absorbed),
            "entropy": hx(entropy),
        }),
        Record::Scalars { what, scalars } => json!({
            "event": "scalars", "what": what,
            "scalars": scalars.iter().map(hx).collect::<Vec<_>>(),
        }),
        _ => json!({ "event": "unknown" }),
    }
}
