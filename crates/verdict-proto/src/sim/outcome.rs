//! What a simulation did, as tests and benchmarks ask it: halts, exclusions, deliveries and
//! each participant's events.

use verdict_dcnet::{ClientId, Party, ServerId};

use super::Simulator;
use crate::event::Event;
use crate::suite::ProtoSuite;

impl<S: ProtoSuite> Simulator<S> {
    /// Every halt any server reported: (reporting server, named culprit, fault).
    pub fn halts(&self) -> Vec<(ServerId, ServerId, crate::ServerFault)> {
        self.events
            .iter()
            .filter_map(|(_, p, e)| match (p, e) {
                (Party::Server(by), Event::Halted { server, fault, .. }) => {
                    Some((*by, *server, fault.clone()))
                }
                _ => None,
            })
            .collect()
    }

    /// The exclusions `who` reported, in order.
    pub fn exclusions(&self, who: Party) -> Vec<(ClientId, crate::ExclusionReason)> {
        self.events_of(who)
            .filter_map(|e| match e {
                Event::Excluded { client, reason, .. } => Some((*client, *reason)),
                _ => None,
            })
            .collect()
    }

    /// The messages `who` saw delivered, in order.
    pub fn delivered(&self, who: Party) -> Vec<Vec<u8>> {
        self.events_of(who)
            .filter_map(|e| match e {
                Event::Delivered { message, .. } => Some(message.clone()),
                _ => None,
            })
            .collect()
    }

    /// How many messages were handed to participants so far (each one call of a
    /// `handle_message`).
    pub fn messages_delivered(&self) -> usize {
        self.messages
    }

    /// Events of one participant.
    pub fn events_of(&self, who: Party) -> impl Iterator<Item = &Event> {
        self.events
            .iter()
            .filter(move |(_, p, _)| *p == who)
            .map(|(_, _, e)| e)
    }
}
