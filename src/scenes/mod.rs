//! Procedural assets shared by examples, tests and benchmarks.
