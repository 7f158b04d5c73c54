//! The statements and transcripts of the client and server proofs, and making a client
//! ciphertext (cover or owner).

use rand_core::{CryptoRng, RngCore};
use verdict_group::{MessageGroup, framing};
use verdict_nizk::{Encoded, Or, Schnorr, SigningKey, Statement, VectorDleq};
use zeroize::Zeroizing;

use crate::error::DcError;
use crate::ids::{ClientId, Party, ServerId, SlotRound};
use crate::suite::{PreparedSlot, Session, accepted_set_digest, proof_context};

use super::types::{
    CLIENT_PURPOSE, HashingGenerator, HgClientCiphertext, HgClientState, SERVER_PURPOSE,
};

impl<G: MessageGroup> HashingGenerator<G> {
    pub(super) fn client_statement(
        u: &Encoded<G>,
        generators: &[Encoded<G>],
        elements: &[Encoded<G>],
    ) -> Result<VectorDleq<G>, DcError> {
        VectorDleq::new(
            Encoded::generator(),
            u.clone(),
            generators.to_vec(),
            elements.to_vec(),
        )
        .map_err(|_| DcError::InvalidParameters("empty slot"))
    }

    pub(super) fn client_transcript(
        session: &Session<Self>,
        slot: SlotRound,
        client: ClientId,
    ) -> verdict_nizk::Transcript {
        proof_context::<Self>(CLIENT_PURPOSE, session.id(), slot, client.0).transcript()
    }

    pub(super) fn make_client<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        state: &HgClientState<G>,
        owner: Option<(&SigningKey<G>, &[u8])>,
        rng: &mut R,
    ) -> Result<HgClientCiphertext<G>, DcError> {
        let gens = &slot.data().generators;
        let pseudonym = session.roster().pseudonym(slot.slot())?;
        let message = match owner {
            Some((key, msg)) => {
                if key.verifying_key() != pseudonym {
                    return Err(DcError::NotSlotOwner { slot: slot.slot() });
                }
                if msg.len() > slot.len() {
                    return Err(DcError::MessageTooLong {
                        len: msg.len(),
                        capacity: slot.len(),
                    });
                }
                // The owner's message elements and its pads together say who sent the
                // message: both are wiped once the ciphertext is built.
                Some(Zeroizing::new(
                    framing::encode_message::<G>(msg, gens.len()).map_err(|_| {
                        DcError::MessageTooLong {
                            len: msg.len(),
                            capacity: slot.len(),
                        }
                    })?,
                ))
            }
            None => None,
        };
        let sigma = state.sigma.expose();
        // The pads σ·g_k and their encodings in one batch (ristretto255 shares one field
        // inversion across all encodings). A cover ciphertext is exactly the pads; an owner
        // adds its message and re-encodes, which costs L encodings more — see the notes on
        // timing: submission time must not depend on it.
        let bases: Vec<G> = gens.iter().map(|g| *g.point()).collect();
        let pads = Encoded::mul_each(&bases, sigma);
        let elements = match &message {
            Some(m) => {
                let pads = Zeroizing::new(pads);
                let cs: Vec<G> = pads
                    .iter()
                    .zip(m.iter())
                    .map(|(p, m)| *p.point() + *m)
                    .collect();
                Encoded::batch_new(&cs)
            }
            None => pads,
        };
        let vd = Self::client_statement(&state.u, gens, &elements)?;
        let schnorr = Schnorr::with_generator(pseudonym.encoded().clone());
        let or = Or::new(vec![&vd as &dyn Statement<G>, &schnorr])
            .map_err(|_| DcError::InvalidParameters("OR statement"))?;
        let mut t = Self::client_transcript(session, slot.slot_round(), state.client);
        let proof = match owner {
            Some((key, _)) => or.prove(&mut t, 1, &*Zeroizing::new([*key.secret().expose()]), rng),
            None => or.prove(&mut t, 0, &*Zeroizing::new([*sigma]), rng),
        }
        .map_err(|_| DcError::InvalidParameters("OR proof"))?;
        Ok(HgClientCiphertext { elements, proof })
    }

    pub(super) fn check_client_len(
        slot: &PreparedSlot<Self>,
        client: ClientId,
        ct: &HgClientCiphertext<G>,
    ) -> Result<(), DcError> {
        let expected = slot.data().generators.len();
        if ct.elements.len() != expected {
            return Err(DcError::WrongCiphertextLength {
                culprit: Party::Client(client),
                expected,
                actual: ct.elements.len(),
            });
        }
        Ok(())
    }

    pub(super) fn server_transcript(
        session: &Session<Self>,
        slot: SlotRound,
        server: ServerId,
        accepted: &[ClientId],
    ) -> verdict_nizk::Transcript {
        proof_context::<Self>(SERVER_PURPOSE, session.id(), slot, server.0)
            .with_field(b"accepted-set", &accepted_set_digest(accepted))
            .transcript()
    }
}
