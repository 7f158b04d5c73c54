//! The message kinds and, in one table, what each is: its wire code, its name, who sends it
//! to whom, and whether it is a *step* (one signed message per sender and round, tracked for
//! equivocation).

use verdict_dcnet::Party;

/// The type of a protocol message (the first header byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Kind {
    /// Client → upstream server: pseudonym-shuffle submission and suite set-up.
    ClientSetup = 1,
    /// Server → servers: the server's suite set-up and its clients' signed set-up messages.
    SetupInventory = 2,
    /// Server → servers: a pseudonym shuffle step.
    ShuffleStep = 3,
    /// Server → servers: decryption shares of the shuffled list.
    Decryption = 4,
    /// Server → its clients: every signed set-up message, for clients to verify themselves.
    SetupTranscript = 5,
    /// Server → servers: DH reveals settling disputed set-up commitments.
    Dispute = 6,
    /// Client → upstream server: one ciphertext per open slot.
    Submission = 10,
    /// Server → servers: the signed submissions this server accepted.
    Inventory = 11,
    /// Server → servers: hash of the server ciphertexts to come (XOR slots).
    Commit = 12,
    /// Server → servers: one server ciphertext per open slot.
    ServerCiphertexts = 13,
    /// Server → servers: signature on the round's output.
    OutputSignature = 14,
    /// Server → its clients: the round output with every server's signature.
    RoundOutput = 15,
    /// Server → servers: the signed headers this server received for one step.
    Echo = 16,
    /// Client → upstream server, after its link came back: "resend the certified outputs from
    /// the round in the header on" (empty payload).
    CatchUp = 17,
    /// Server → servers: this server's pad bits for an accusation (hybrid blame).
    BlameBits = 20,
    /// Server → suspect client: the published pad bits, to rebut.
    RebuttalRequest = 21,
    /// Suspect client → servers: a DH reveal showing a server lied, or nothing.
    Rebuttal = 22,
    /// Server → servers: this server's verdict on an accusation.
    Verdict = 23,
    /// Server → servers: a server fault with its evidence; the session halts.
    Alert = 30,
}

/// Which role sends or receives a kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A client.
    Client,
    /// A server.
    Server,
}

impl Role {
    /// The role of `party`.
    pub fn of(party: Party) -> Self {
        match party {
            Party::Client(_) => Self::Client,
            Party::Server(_) => Self::Server,
        }
    }
}

/// One row of [`TABLE`].
struct Row {
    kind: Kind,
    name: &'static str,
    from: Role,
    to: Role,
    step: bool,
}

const fn row(kind: Kind, name: &'static str, from: Role, to: Role, step: bool) -> Row {
    Row {
        kind,
        name,
        from,
        to,
        step,
    }
}

use Role::{Client as C, Server as S};

/// Every kind: name, sender role, recipient role, step.
const TABLE: [Row; 19] = [
    row(Kind::ClientSetup, "client set-up", C, S, false),
    row(Kind::SetupInventory, "set-up inventory", S, S, true),
    row(Kind::ShuffleStep, "shuffle step", S, S, true),
    row(Kind::Decryption, "decryption shares", S, S, true),
    row(Kind::SetupTranscript, "set-up transcript", S, C, false),
    row(Kind::Dispute, "dispute reveals", S, S, true),
    row(Kind::Submission, "submission", C, S, false),
    row(Kind::Inventory, "inventory", S, S, true),
    row(Kind::Commit, "commit", S, S, true),
    row(Kind::ServerCiphertexts, "server ciphertexts", S, S, true),
    row(Kind::OutputSignature, "output signature", S, S, true),
    row(Kind::RoundOutput, "round output", S, C, false),
    row(Kind::Echo, "echo", S, S, false),
    row(Kind::CatchUp, "catch-up request", C, S, false),
    row(Kind::BlameBits, "blame bits", S, S, true),
    row(Kind::RebuttalRequest, "rebuttal request", S, C, false),
    row(Kind::Rebuttal, "rebuttal", C, S, false),
    row(Kind::Verdict, "verdict", S, S, true),
    row(Kind::Alert, "alert", S, S, false),
];

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 19] = {
        let mut all = [Kind::Alert; 19];
        let mut i = 0;
        while i < TABLE.len() {
            all[i] = TABLE[i].kind;
            i += 1;
        }
        all
    };

    fn row(self) -> &'static Row {
        // Every kind has exactly one row (checked by a test); the fallback is never taken.
        TABLE
            .iter()
            .find(|r| r.kind == self)
            .unwrap_or(&TABLE[TABLE.len() - 1])
    }

    /// A human-readable name (for errors and logs).
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// Whether a participant of role `to` accepts this kind from `from`.
    pub fn allowed(self, from: Party, to: Role) -> bool {
        let row = self.row();
        row.from == Role::of(from) && row.to == to
    }

    /// Whether this kind is a step: one signed message per sender and round, so a second,
    /// different one is equivocation.
    pub fn is_step(self) -> bool {
        self.row().step
    }

    pub(crate) fn from_u8(b: u8) -> Option<Self> {
        TABLE.iter().map(|r| r.kind).find(|k| *k as u8 == b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_one_row_per_kind_and_codes_round_trip() {
        for (i, k) in Kind::ALL.iter().enumerate() {
            assert_eq!(TABLE.iter().filter(|r| r.kind == *k).count(), 1, "{k:?}");
            assert_eq!(Kind::from_u8(*k as u8), Some(*k));
            assert_eq!(Kind::ALL.iter().position(|x| x == k), Some(i));
        }
        assert_eq!(Kind::from_u8(0), None);
        assert_eq!(Kind::from_u8(7), None);
        let c = Party::Client(verdict_dcnet::ClientId(0));
        let s = Party::Server(verdict_dcnet::ServerId(0));
        assert!(Kind::Submission.allowed(c, Role::Server));
        assert!(!Kind::Submission.allowed(s, Role::Server));
        assert!(!Kind::Submission.allowed(c, Role::Client));
        assert!(Kind::RoundOutput.allowed(s, Role::Client));
        assert!(Kind::Verdict.is_step() && !Kind::Echo.is_step() && !Kind::Rebuttal.is_step());
    }
}
