#![doc = include_str!("../README.md")]

pub mod elgamal;
pub mod pairing;
pub mod verifiable;
