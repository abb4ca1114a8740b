//! nexusq: the command line over `nexusq_core`. It resolves options, calls the library and
//! renders what it returns; the three binaries (`nexusq`, `age-plugin-nexusq`,
//! `nexusq-git-sign`) are thin mains over [`cli`].

pub mod cli;
