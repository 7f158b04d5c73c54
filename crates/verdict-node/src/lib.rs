#![doc = include_str!("../README.md")]

pub mod cli;
pub mod client_store;
pub mod driver;
pub mod error;
pub mod groupfile;
pub mod history;
pub mod host;
pub mod keyfile;
pub mod local;
pub mod metrics;
pub mod output;
pub mod policy_args;
pub mod shutdown;
pub mod suite;
pub mod transport;

pub use error::NodeError;
