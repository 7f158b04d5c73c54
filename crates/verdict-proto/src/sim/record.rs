//! Test instrument: everything one participant was handed and sent, in order, so that a twin
//! of it can be driven through the same inputs and compared (see `tests_arrival.rs`).

use core::time::Duration;
use std::sync::Arc;

use verdict_dcnet::Party;

use crate::event::Transmit;

/// One call into the recorded participant.
#[derive(Clone, Debug)]
pub(super) enum Input {
    /// `handle_timeout(now)` on its own (a timer fired).
    Timeout(Duration),
    /// `handle_timeout(now)`, then the messages handed in together.
    Messages(Duration, Vec<(Party, Arc<[u8]>)>),
}

/// What the recorded participant was handed and sent.
#[derive(Debug, Default)]
pub(super) struct Recorder {
    /// The participant recorded (none: nothing is).
    pub(super) who: Option<Party>,
    pub(super) inputs: Vec<Input>,
    /// Its transmissions, as it made them (before any tampering on the link).
    pub(super) transmits: Vec<(Party, Arc<[u8]>)>,
}

impl Recorder {
    pub(super) fn timeout(&mut self, who: Party, now: Duration) {
        if self.who == Some(who) {
            self.inputs.push(Input::Timeout(now));
        }
    }

    pub(super) fn messages<'a>(
        &mut self,
        who: Party,
        now: Duration,
        batch: impl IntoIterator<Item = (Party, &'a Arc<[u8]>)>,
    ) {
        if self.who == Some(who) {
            let batch = batch.into_iter().map(|(p, b)| (p, Arc::clone(b))).collect();
            self.inputs.push(Input::Messages(now, batch));
        }
    }

    pub(super) fn transmit(&mut self, who: Party, t: &Transmit) {
        if self.who == Some(who) {
            self.transmits.push((t.to, Arc::clone(&t.bytes)));
        }
    }
}
