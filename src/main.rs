//! Parse, run, map the error to an exit code; nothing else.

use clap::Parser;

fn main() {
    let cli = match nexusq::cli::args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version exit 0; every other clap error is a usage error (exit 2).
            let _ = e.print();
            std::process::exit(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let json = cli.global.json;
    if let Err(err) = nexusq::cli::run(cli) {
        nexusq::cli::output::Output::new(json).error(&err);
        std::process::exit(err.exit().code());
    }
}
