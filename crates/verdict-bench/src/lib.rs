#![doc = include_str!("../README.md")]

pub mod macro_bench;
