//! Events as JSON lines (stdout of `verdict server` / `verdict client`, and the history).

use serde_json::{Value, json};
use verdict_proto::Event;

/// The JSON form of an event, or `None` for events that only go to the log (rejected
/// messages).
pub fn event_json(e: &Event) -> Option<Value> {
    Some(match e {
        Event::SetupComplete {
            slots,
            own_slot,
            absent,
        } => json!({
            "event": "setup_complete",
            "slots": slots,
            "own_slot": own_slot,
            "absent": absent.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
        }),
        Event::SetupFailed { reason, culprits } => json!({
            "event": "setup_failed",
            "reason": format!("{reason:?}"),
            "culprits": culprits.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
        }),
        Event::RoundComplete {
            round,
            participants,
        } => json!({"event": "round", "round": round, "participants": participants}),
        Event::Delivered {
            round,
            slot,
            message,
        } => json!({
            "event": "delivered",
            "round": round,
            "slot": slot,
            "message": String::from_utf8_lossy(message),
        }),
        Event::Excluded { client, reason, .. } => json!({
            "event": "excluded",
            "client": client.to_string(),
            "reason": format!("{reason:?}"),
        }),
        Event::Accusation(a) => json!({"event": "accusation", "detail": format!("{a:?}")}),
        Event::Verdict {
            accusation,
            culprit,
        } => json!({
            "event": "verdict",
            "culprit": culprit.map(|p| p.to_string()),
            "accusation": format!("{accusation:?}"),
        }),
        Event::Halted { server, fault, .. } => json!({
            "event": "halted",
            "server": server.to_string(),
            "fault": format!("{fault}"),
        }),
        Event::PeerHalted {
            by, alleged, fault, ..
        } => json!({
            "event": "peer_halted",
            "by": by.to_string(),
            "alleged": alleged.to_string(),
            "fault": format!("{fault}"),
        }),
        Event::LeftOut { round } => json!({"event": "left_out", "round": round}),
        _ => return None,
    })
}

/// Whether an event goes into the durable history (verdicts, exclusions, halts).
pub fn is_durable(e: &Event) -> bool {
    matches!(
        e,
        Event::Excluded { .. }
            | Event::Verdict { .. }
            | Event::Halted { .. }
            | Event::PeerHalted { .. }
            | Event::SetupFailed { .. }
    )
}

/// Prints one JSON line to stdout.
pub fn emit(v: &Value) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{v}");
    let _ = out.flush();
}
