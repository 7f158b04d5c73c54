//! Test-only knobs that switch off individual soundness checks, so that the forgery tests can
//! show each check is load-bearing (the forgery is accepted without the check, rejected with it).
//!
//! The knobs exist only under `#[cfg(test)]`, i.e. in this crate's own unit-test build. They are
//! not a cargo feature, so no dependent crate, feature unification or build flag can turn them
//! on: in every other build [`Hooks`] is an empty struct whose only value is "all checks on".

use core::marker::PhantomData;

use verdict_group::Group;

/// Which checks are switched off. Production code only ever uses [`Hooks::secure`].
pub(crate) struct Hooks<G: Group> {
    /// Omit the statement points (inputs and outputs) from the Fiat–Shamir transcript.
    #[cfg(test)]
    pub(crate) skip_statement: bool,
    /// Take `R`, `S` from the prover instead of recomputing `Rᵢ = Aᵢ·Bᵢ^λ`, `Sᵢ = Cᵢ·Dᵢ^λ`.
    #[cfg(test)]
    pub(crate) prover_rs: Option<(Vec<G>, Vec<G>)>,
    _marker: PhantomData<G>,
}

impl<G: Group> Hooks<G> {
    /// Every check on.
    pub(crate) fn secure() -> Self {
        Self {
            #[cfg(test)]
            skip_statement: false,
            #[cfg(test)]
            prover_rs: None,
            _marker: PhantomData,
        }
    }

    /// Test-only: a hook set with the given checks switched off.
    #[cfg(test)]
    pub(crate) fn insecure(skip_statement: bool, prover_rs: Option<(Vec<G>, Vec<G>)>) -> Self {
        Self {
            skip_statement,
            prover_rs,
            _marker: PhantomData,
        }
    }

    /// Whether the statement points are absorbed (always, outside this crate's unit tests).
    pub(crate) fn absorb_statement(&self) -> bool {
        #[cfg(test)]
        {
            !self.skip_statement
        }
        #[cfg(not(test))]
        {
            true
        }
    }

    /// Prover-supplied `R`, `S` (never, outside this crate's unit tests).
    pub(crate) fn prover_rs(&self) -> Option<(&[G], &[G])> {
        #[cfg(test)]
        {
            self.prover_rs
                .as_ref()
                .map(|(r, s)| (r.as_slice(), s.as_slice()))
        }
        #[cfg(not(test))]
        {
            None
        }
    }
}
