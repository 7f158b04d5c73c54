//! A server proof over an accepted set that names a client twice: made with the server's own
//! secrets, so the DLEQ is valid for the sum it claims — only the accepted-set check stands
//! between it and acceptance (issue 19, item 6: a repeated id would count a commitment twice).

use verdict_group::{Group, Ristretto255, Scalar};
use zeroize::Zeroizing;

use super::HashingGenerator;
use crate::aggregate::Aggregating;
use crate::ids::{ClientId, ServerId, SlotRound};
use crate::suite::PreparedSlot;
use crate::{DcError, server_dleq, testing};

type C = HashingGenerator<Ristretto255>;
type Sc = <Ristretto255 as Group>::Scalar;

#[test]
fn accepted_set_with_a_repeated_client_is_rejected() {
    let mut r = testing::rng(31);
    let w = testing::setup::<C>(3, 2, 1, &mut r);
    let slot = PreparedSlot::new(&w.session, SlotRound::new(0, 4, 64)).unwrap();
    let server = ServerId(1);
    let state = &w.servers[1];
    let repeated = [ClientId(0), ClientId(0), ClientId(2)];
    // What a dishonest server would publish for the repeated set: τ over the list as given.
    let mut tau = Zeroizing::new(Sc::zero());
    for c in &repeated {
        *tau += *state.secrets[c.index()].expose();
    }
    let mut t = C::server_transcript(&w.session, slot.slot_round(), server, &repeated);
    let forged = server_dleq::prove(&*tau, slot.data().negated().to_vec(), &mut t, &mut r)
        .map_err(|e| e.into_dc(server))
        .unwrap();

    assert_eq!(
        C::verify_server_for(&w.session, &slot, server, &repeated, &forged),
        Err(DcError::DuplicateClient {
            client: ClientId(0)
        })
    );
    assert_eq!(
        C::verify_server_slots_for(&w.session, server, &repeated, &[(&slot, &forged)], &mut r),
        Err(vec![0])
    );
    // The honest ciphertext over the distinct set passes the same verifier.
    let distinct = [ClientId(0), ClientId(2)];
    let honest = C::server_ciphertext_for(&w.session, &slot, state, &distinct, &mut r).unwrap();
    assert_eq!(
        C::verify_server_slots_for(&w.session, server, &distinct, &[(&slot, &honest)], &mut r),
        Ok(())
    );
}

/// A client ciphertext with one element too few names that client as the culprit of a length
/// error (not a generic parameter error: blame depends on it).
#[test]
fn short_client_ciphertext_names_the_client() {
    use crate::Verifiable;
    use crate::ids::Party;
    let mut r = testing::rng(32);
    let w = testing::setup::<C>(2, 1, 1, &mut r);
    let slot = PreparedSlot::new(&w.session, SlotRound::new(0, 1, 64)).unwrap();
    let mut cts = testing::client_ciphertexts(&w, &slot, None, &mut r);
    let expected = cts[1].elements.len();
    assert_eq!(
        C::verify_client(&w.session, &slot, ClientId(1), &cts[1]),
        Ok(())
    );
    cts[1].elements.pop();
    assert_eq!(
        C::verify_client(&w.session, &slot, ClientId(1), &cts[1]),
        Err(DcError::WrongCiphertextLength {
            culprit: Party::Client(ClientId(1)),
            expected,
            actual: expected - 1,
        })
    );
}

/// One server's ciphertexts of many slots checked as one batch (each slot's statement and
/// transcript prepared on its own, in parallel with the `parallel` feature): a ciphertext
/// with an element missing and one made for another slot are named by their positions, and
/// nothing else, whatever the thread count.
#[test]
fn a_batch_of_slots_names_exactly_its_bad_positions_on_any_thread_count() {
    let mut r = testing::rng(33);
    let w = testing::setup::<C>(4, 2, 1, &mut r);
    let server = ServerId(0);
    let state = &w.servers[0];
    let ids = [ClientId(0), ClientId(1), ClientId(2), ClientId(3)];
    let slots: Vec<PreparedSlot<C>> = (0..12)
        .map(|k| PreparedSlot::new(&w.session, SlotRound::new(0, k, 64)).unwrap())
        .collect();
    let mut cts: Vec<_> = slots
        .iter()
        .map(|s| C::server_ciphertext_for(&w.session, s, state, &ids, &mut r).unwrap())
        .collect();
    cts[3].elements.pop();
    cts[8] = cts[9].clone();
    let items: Vec<_> = slots.iter().zip(&cts).collect();
    for threads in [1, 2] {
        let got = verdict_group::par::with_threads(threads, || {
            C::verify_server_slots_for(&w.session, server, &ids, &items, &mut testing::rng(34))
        })
        .unwrap();
        assert_eq!(got, Err(vec![3, 8]), "{threads} thread(s)");
    }
    let good: Vec<_> = items
        .iter()
        .enumerate()
        .filter(|(k, _)| ![3, 8].contains(k))
        .map(|(_, item)| *item)
        .collect();
    assert_eq!(
        C::verify_server_slots_for(&w.session, server, &ids, &good, &mut r),
        Ok(())
    );
}
